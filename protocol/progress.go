package protocol

// ProgressParams are the params of $/progress.
type ProgressParams struct {
	Token string       `json:"token"`
	Value WorkProgress `json:"value"`
}

// WorkProgress is LSP's work-done progress payload.
type WorkProgress struct {
	Kind       string `json:"kind"` // begin | report | end
	Title      string `json:"title,omitempty"`
	Message    string `json:"message,omitempty"`
	Percentage *int   `json:"percentage,omitempty"`
}

// LogMessageParams are the params of window/logMessage.
type LogMessageParams struct {
	Type    int    `json:"type"` // 1 error, 2 warning, 3 info, 4 log
	Message string `json:"message"`
}
