package protocol

import "encoding/json"

// The editor-facing additions of issue 22: reviewable approvals, writes
// through the editor, prompt context and file search. docs/protocol.md is
// the reference for each.

// ApprovalReply is the whole client answer to ui/requestApproval as pi-lsp
// reads it (ApprovalResult plus content and feedback): Content raw, so a
// value that is not a string can be declined with a clear result.
type ApprovalReply struct {
	Decision string          `json:"decision"`
	Content  json.RawMessage `json:"content,omitempty"`
	Feedback string          `json:"feedback,omitempty"`
}

// LineRange is an inclusive 1-based line range.
type LineRange struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

// ContextItem is one entry of agent/prompt's context: a file (its content
// read by the server through the editor's buffers, or Text when the client
// sends a buffer's unsaved text), a selection, or an image.
type ContextItem struct {
	Type     string     `json:"type"` // file | selection | image
	Path     string     `json:"path,omitempty"`
	Range    *LineRange `json:"range,omitempty"`
	Text     *string    `json:"text,omitempty"`
	MimeType string     `json:"mimeType,omitempty"`
	Data     string     `json:"data,omitempty"`
}

// FilesSearchParams is files/search.
type FilesSearchParams struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// FileMatch is one files/search result.
type FileMatch struct {
	Path      string `json:"path"` // relative to the workspace, slash-separated
	Abs       string `json:"abs"`
	Score     int    `json:"score"`
	Positions []int  `json:"positions"`
}

// FilesSearchResult is files/search's answer.
type FilesSearchResult struct {
	Files     []FileMatch `json:"files"`
	Truncated bool        `json:"truncated"`
}

// DraftsResult is what agent/abort and agent/interrupt answer: the queued
// messages they dropped, for the editor to put back in its input.
type DraftsResult struct {
	ReturnedDrafts []string `json:"returnedDrafts"`
}
