package protocol

import "encoding/json"

// Diagnostics and code navigation from the editor's language servers
// (docs/protocol.md, "editor/diagnostics" and "editor/lsp"). The LSP
// shapes below are LSP's own (0-based positions, severity 1–4), declared
// here because this package imports no other and the client types are
// generated from its source.

// LSPPosition is LSP's Position: 0-based line and UTF-16 character.
type LSPPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// LSPRange is LSP's Range.
type LSPRange struct {
	Start LSPPosition `json:"start"`
	End   LSPPosition `json:"end"`
}

// LSPDiagnostic is LSP's Diagnostic: severity 1 error, 2 warning, 3
// information, 4 hint; code a number or a string.
type LSPDiagnostic struct {
	Range    LSPRange        `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// EditorDiagnosticsParams are the params of editor/diagnostics (server →
// client): absolute paths, and how long the client lets its language
// servers settle after the last change before it answers.
type EditorDiagnosticsParams struct {
	Paths    []string `json:"paths"`
	SettleMs int      `json:"settleMs"`
}

// FileDiagnostics are one file's problems.
type FileDiagnostics struct {
	Path        string          `json:"path"`
	Diagnostics []LSPDiagnostic `json:"diagnostics"`
}

// EditorDiagnosticsResult is the client's answer to editor/diagnostics.
type EditorDiagnosticsResult struct {
	Files []FileDiagnostics `json:"files"`
}

// LSP operations of editor/lsp and the lsp tool.
const (
	LSPDefinition    = "definition"
	LSPReferences    = "references"
	LSPHover         = "hover"
	LSPSymbols       = "symbols"
	LSPRenamePreview = "rename_preview"
)

// EditorLSPParams are the params of editor/lsp (server → client): an
// operation at a 1-based line and column of an absolute path; query is the
// new name of rename_preview, or a workspace symbol search for symbols.
type EditorLSPParams struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Query  string `json:"query,omitempty"`
}

// LSPLocation is one place of an editor/lsp answer, 1-based, with a short
// text (the line of code, a symbol's name, a rename's new text).
type LSPLocation struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Text      string `json:"text,omitempty"`
}

// EditorLSPResult is the client's answer to editor/lsp.
type EditorLSPResult struct {
	Locations []LSPLocation `json:"locations"`
	Hover     string        `json:"hover,omitempty"` // markdown
}
