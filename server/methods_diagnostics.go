package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pi-lsp/pi-lsp/rpc"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// editor/diagnostics and editor/lsp: the harness asks the editor's
// language servers through the clients that declared
// capabilities.diagnostics. The owner's own client is asked first, then
// each capable attached client in turn, within the caller's deadline.

var _ harness.EditorIntel = (*hub)(nil)

// intelClients are the clients that answer editor/diagnostics, the
// owner's own first.
func (hb *hub) intelClients() []*rpc.Client {
	cs := hb.Capable("editor/diagnostics")
	own := hb.Owner()
	for i, c := range cs {
		if c == own && i > 0 {
			cs[0], cs[i] = cs[i], cs[0]
		}
	}
	return cs
}

// EditorAnswers reports whether a connected client answers for its
// language servers (the harness then starts none of its own).
func (hb *hub) EditorAnswers() bool { return len(hb.Capable("editor/diagnostics")) > 0 }

// EditorDiagnostics asks the clients in turn; the first readable answer
// wins. tools.ErrNoUI when no client declared the capability.
func (hb *hub) EditorDiagnostics(ctx context.Context, paths []string, settle time.Duration) ([]tools.Diagnostic, error) {
	clients := hb.intelClients()
	if len(clients) == 0 {
		return nil, tools.ErrNoUI
	}
	params := protocol.EditorDiagnosticsParams{Paths: paths, SettleMs: int(settle / time.Millisecond)}
	var lastErr error
	for _, c := range clients {
		var raw json.RawMessage
		if err := c.Call(ctx, "editor/diagnostics", params, &raw); err != nil {
			lastErr = err
			c.Log(slog.LevelWarn, fmt.Sprintf("editor/diagnostics: no answer: %v", err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		var res protocol.EditorDiagnosticsResult
		if err := json.Unmarshal(raw, &res); err != nil {
			lastErr = fmt.Errorf("editor/diagnostics: unreadable answer: %w", err)
			c.Log(slog.LevelWarn, lastErr.Error()+": ignored")
			continue
		}
		return fromEditorDiagnostics(c, res), nil
	}
	if lastErr == nil {
		lastErr = tools.ErrNoUI
	}
	return nil, lastErr
}

// fromEditorDiagnostics converts an answer to 1-based diagnostics; a file
// without an absolute path and a diagnostic out of LSP's shape are dropped
// with a log line.
func fromEditorDiagnostics(c *rpc.Client, res protocol.EditorDiagnosticsResult) []tools.Diagnostic {
	var out []tools.Diagnostic
	for _, f := range res.Files {
		if !filepath.IsAbs(f.Path) {
			c.Log(slog.LevelWarn, fmt.Sprintf("editor/diagnostics: file path %q is not absolute: ignored", f.Path))
			continue
		}
		for _, d := range f.Diagnostics {
			st := d.Range.Start
			if st.Line < 0 || st.Character < 0 || d.Severity < 0 || d.Severity > 4 || d.Message == "" {
				c.Log(slog.LevelWarn, fmt.Sprintf("editor/diagnostics: malformed diagnostic in %s (line %d, severity %d): ignored", f.Path, st.Line, d.Severity))
				continue
			}
			sev := d.Severity
			if sev == 0 {
				sev = 1
			}
			out = append(out, tools.Diagnostic{
				Path: filepath.Clean(f.Path), Line: st.Line + 1, Column: st.Character + 1, Severity: sev,
				Message: d.Message, Source: d.Source, Code: codeText(d.Code),
			})
		}
	}
	return out
}

func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// EditorLSP asks the clients in turn for a navigation answer.
func (hb *hub) EditorLSP(ctx context.Context, q tools.LSPQuery) (tools.LSPResult, error) {
	clients := hb.intelClients()
	if len(clients) == 0 {
		return tools.LSPResult{}, tools.ErrNoUI
	}
	params := protocol.EditorLSPParams{Op: q.Op, Path: q.Path, Line: q.Line, Column: q.Column, Query: q.Query}
	var lastErr error
	for _, c := range clients {
		var res protocol.EditorLSPResult
		if err := c.Call(ctx, "editor/lsp", params, &res); err != nil {
			lastErr = err
			c.Log(slog.LevelWarn, fmt.Sprintf("editor/lsp: no answer: %v", err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		out := tools.LSPResult{Hover: res.Hover}
		for _, l := range res.Locations {
			if !filepath.IsAbs(l.Path) || l.Line < 1 || l.Column < 1 {
				c.Log(slog.LevelWarn, fmt.Sprintf("editor/lsp: malformed location %q %d:%d: ignored", l.Path, l.Line, l.Column))
				continue
			}
			out.Locations = append(out.Locations, tools.LSPLocation{Path: l.Path, Line: l.Line, Column: l.Column, EndLine: l.EndLine, EndColumn: l.EndColumn, Text: l.Text})
		}
		return out, nil
	}
	var rpcErr *rpc.Error
	if errors.As(lastErr, &rpcErr) {
		return tools.LSPResult{}, fmt.Errorf("the editor: %s", rpcErr.Message)
	}
	return tools.LSPResult{}, lastErr
}
