package protocol

// ImageRef names an image the session holds: the Index-th image (from 0)
// of the user message in session entry Entry. An image attachment of a
// user item read from the session carries one, so an editor can show the
// picture again (a reload) by asking session/image for it, instead of
// every state carrying the bytes.
type ImageRef struct {
	Entry string `json:"entry"`
	Index int    `json:"index"`
}

// SessionImageParams are session/image's params: the attachment's ref.
type SessionImageParams struct {
	Entry string `json:"entry"`
	Index int    `json:"index"`
}

// SessionImageResult is session/image's result: the image as the prompt
// sent it (base64 data).
type SessionImageResult struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}
