package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Diagnostic is one problem a language server reported, with 1-based
// line and column and an absolute path.
type Diagnostic struct {
	Path     string
	Line     int
	Column   int
	Severity int // 1 error, 2 warning, 3 information, 4 hint
	Message  string
	Source   string
	Code     string
}

// SeverityName is the word for an LSP severity.
func SeverityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error"
}

// Format is the one-line form `path:line:column: severity: message
// (source)`, the path shown relative to cwd when inside it.
func (d Diagnostic) Format(cwd string) string {
	msg := strings.Join(strings.Fields(d.Message), " ")
	s := fmt.Sprintf("%s:%d:%d: %s: %s", relTo(cwd, d.Path), d.Line, d.Column, SeverityName(d.Severity), msg)
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}

// LSPQuery is one code-navigation request, 1-based.
type LSPQuery struct {
	Op     string // definition | references | hover | symbols | rename_preview
	Path   string // absolute
	Line   int
	Column int
	Query  string
}

// LSPLocation is one place of an answer, 1-based; Text is a short line
// of code or label ("" when the answerer had none).
type LSPLocation struct {
	Path      string
	Line      int
	Column    int
	EndLine   int
	EndColumn int
	Text      string
}

// LSPResult is the answer to an LSPQuery.
type LSPResult struct {
	Locations []LSPLocation
	Hover     string
}

// ErrNoCodeIntel: neither the editor nor a language server pi-lsp runs
// serves the file.
var ErrNoCodeIntel = errors.New("no language server serves this file")

// CodeIntel is the part of the back channel that reaches language
// servers: the editor's (editor/diagnostics, editor/lsp) or those pi-lsp
// starts itself. A Host may implement it.
type CodeIntel interface {
	// Diagnostics returns the current problems of paths (absolute), or of
	// every file open or changed in the session when paths is empty.
	Diagnostics(ctx context.Context, paths []string) ([]Diagnostic, error)
	// LSP answers a navigation request.
	LSP(ctx context.Context, q LSPQuery) (LSPResult, error)
}

func relTo(cwd, abs string) string {
	if cwd != "" && strings.HasPrefix(abs, cwd+"/") {
		return abs[len(cwd)+1:]
	}
	return abs
}

const diagnosticsSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File to check (default: every file open or changed in this session)"}}}`

func diagnosticsTool() Tool {
	return newTool("diagnostics", "Show the current errors and warnings language servers report for a file (or for every file open or changed in this session), one line each: path:line:column: severity: message (source).", CategoryRead, diagnosticsSchema, runDiagnostics)
}

// maxListed caps the lines of the diagnostics and lsp tools.
const maxListed = 200

func runDiagnostics(ctx context.Context, call Call, x Exec) Result {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("diagnostics", err)
	}
	ci, ok := x.Host.(CodeIntel)
	if !ok || ci == nil {
		return errorResult("diagnostics: no language server is available in this session")
	}
	var paths []string
	if a.Path != "" {
		paths = []string{resolvePath(x.Env, a.Path)}
	}
	ds, err := ci.Diagnostics(ctx, paths)
	if err != nil && len(ds) == 0 {
		return errorResult("diagnostics unavailable (" + err.Error() + ")")
	}
	var lines []string
	for i, d := range ds {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("and %d more", len(ds)-maxListed))
			break
		}
		lines = append(lines, d.Format(x.Env.Cwd()))
	}
	text := strings.Join(lines, "\n")
	if len(lines) == 0 {
		text = "No problems reported."
	}
	if err != nil {
		text += "\n(partial: " + err.Error() + ")"
	}
	res := textResult(text)
	res.Display = text
	return res
}

const lspSchema = `{"type":"object","properties":{` +
	`"op":{"type":"string","enum":["definition","references","hover","symbols","rename_preview"],"description":"What to ask the language server"},` +
	`"path":{"type":"string","description":"File the position is in"},` +
	`"line":{"type":"number","description":"1-based line"},` +
	`"column":{"type":"number","description":"1-based column"},` +
	`"query":{"type":"string","description":"rename_preview: the new name (nothing is changed); symbols: a workspace symbol search (default: the file's symbols)"}},` +
	`"required":["op","path"]}`

func lspTool() Tool {
	return newTool("lsp", "Navigate code with the language server: definition, references, hover, symbols (of a file, or a workspace search with query) and rename_preview (the places a rename to query would change; nothing is changed). Line and column are 1-based. Results are path:line:column with the line of code.", CategoryRead, lspSchema, runLSP)
}

func runLSP(ctx context.Context, call Call, x Exec) Result {
	var a struct {
		Op     string `json:"op"`
		Path   string `json:"path"`
		Line   optInt `json:"line"`
		Column optInt `json:"column"`
		Query  string `json:"query"`
	}
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("lsp", err)
	}
	switch a.Op {
	case "definition", "references", "hover", "rename_preview":
		if !a.Line.Set || !a.Column.Set || a.Line.V < 1 || a.Column.V < 1 {
			return errorResult(fmt.Sprintf("lsp %s needs a 1-based line and column", a.Op))
		}
	case "symbols":
	default:
		return errorResult(fmt.Sprintf("lsp: unknown op %q (want definition, references, hover, symbols or rename_preview)", a.Op))
	}
	if a.Path == "" {
		return errorResult("lsp: path is required")
	}
	if a.Op == "rename_preview" && a.Query == "" {
		return errorResult("lsp rename_preview needs the new name in query")
	}
	ci, ok := x.Host.(CodeIntel)
	if !ok || ci == nil {
		return errorResult("lsp: no language server is available in this session")
	}
	q := LSPQuery{Op: a.Op, Path: resolvePath(x.Env, a.Path), Line: max(a.Line.V, 1), Column: max(a.Column.V, 1), Query: a.Query}
	r, err := ci.LSP(ctx, q)
	if err != nil {
		return errorResult("lsp " + a.Op + ": " + err.Error())
	}
	var b strings.Builder
	if r.Hover != "" {
		b.WriteString(strings.TrimSpace(r.Hover))
		b.WriteString("\n")
	}
	lines := map[string][]string{} // file -> its lines, read once
	for i, l := range r.Locations {
		if i == maxListed {
			fmt.Fprintf(&b, "and %d more\n", len(r.Locations)-maxListed)
			break
		}
		text := l.Text
		if text == "" || a.Op == "rename_preview" {
			code := lineOf(ctx, x, lines, l.Path, l.Line)
			if text != "" {
				code += "  " + text
			}
			text = code
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", relTo(x.Env.Cwd(), l.Path), l.Line, l.Column, text)
	}
	out := strings.TrimRight(b.String(), "\n")
	if out == "" {
		out = "No results."
	}
	res := textResult(out)
	res.Display = out
	return res
}

// lineOf is line n (1-based) of path, trimmed and cut to a short length.
func lineOf(ctx context.Context, x Exec, cache map[string][]string, path string, n int) string {
	ls, ok := cache[path]
	if !ok {
		if data, err := x.Env.ReadFile(ctx, path); err == nil {
			ls = strings.Split(string(data), "\n")
		}
		cache[path] = ls
	}
	if n < 1 || n > len(ls) {
		return ""
	}
	s := strings.TrimSpace(ls[n-1])
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
