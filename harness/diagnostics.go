package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/langserver"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Diagnostics after every change the agent makes (docs/tools.md): the new
// errors and warnings of the files a write, an edit or a bash changed are
// appended to that call's result. They come from the editor's language
// servers when a client can answer (EditorIntel), else from the language
// servers pi-lsp starts itself (langserver).

// DefaultSettle is how long the language servers may settle after a
// change (diagnostics.settleMs).
const DefaultSettle = 1500 * time.Millisecond

// answerGrace is how much longer than the settle time a client or server
// may take before a change's diagnostics are skipped.
const answerGrace = 2 * time.Second

// maxShownDiagnostics caps the lines appended to one result.
const maxShownDiagnostics = 20

// maxOpenFiles bounds the files the agent "has open" (read, written or
// edited in the session) that a bash's changes are checked in.
const maxOpenFiles = 50

// DiagnosticsSettings configure diagnostics after changes (the
// diagnostics section of the settings).
type DiagnosticsSettings struct {
	Disabled bool          // diagnostics.enabled: false
	Settle   time.Duration // diagnostics.settleMs; 0 = DefaultSettle
}

// EditorIntel is a UI that can ask the editor's language servers
// (editor/diagnostics, editor/lsp). Its methods return tools.ErrNoUI when
// no connected client declared the capability.
type EditorIntel interface {
	EditorDiagnostics(ctx context.Context, paths []string, settle time.Duration) ([]tools.Diagnostic, error)
	EditorLSP(ctx context.Context, q tools.LSPQuery) (tools.LSPResult, error)
}

// codeState is the harness's language intelligence: its own servers, the
// files the agent has open, and the failures already reported.
type codeState struct {
	mgr   *langserver.Manager // nil: no server configured or detected
	owned bool                // this harness closes mgr (a subagent shares its parent's)
	warm  sync.Once

	mu       sync.Mutex
	open     []string        // absolute paths, most recent last
	reported map[string]bool // "diagnostics unavailable" reasons given
}

func (h *Harness) settle() time.Duration {
	if h.cfg.Diagnostics.Settle > 0 {
		return h.cfg.Diagnostics.Settle
	}
	return DefaultSettle
}

// newLangServers builds the harness's own language servers (started by
// warmCode). They run under bash's sandbox with their caches writable.
func (h *Harness) newLangServers() {
	if len(h.cfg.LangServers) == 0 {
		return
	}
	h.code.mgr = langserver.New(langserver.Options{
		Root:    h.Cwd(),
		Roots:   h.cfg.Roots,
		Servers: h.cfg.LangServers,
		Wrap:    h.sandboxLangServer,
		Logger:  h.log,
		Notice:  h.notice,
	})
	h.code.owned = true
}

// sandboxLangServer puts a language server's argv under the sandbox of
// Build mode (workspace-write), its cache directories created first so
// they exist to be made writable (gopls keeps Go's build cache in
// ~/.cache).
func (h *Harness) sandboxLangServer(argv []string) ([]string, error) {
	if m := h.cfg.Sandbox.Mode; m == "" || m == env.SandboxOff {
		return argv, nil
	}
	if ok, why := h.sandbox.check(); !ok {
		if h.cfg.Sandbox.Required {
			return nil, fmt.Errorf("sandbox.required is set and commands cannot be sandboxed here: %s", why)
		}
		return argv, nil
	}
	w := h.cfg.Sandbox.Writable
	if w == nil {
		w = env.DefaultWritable()
	}
	for _, d := range w {
		_ = os.MkdirAll(d, 0o755)
	}
	p := env.SandboxPolicy{Mode: env.SandboxWorkspaceWrite, NoNetwork: h.cfg.Sandbox.NoNetwork}
	p.Writable = append(append(append(p.Writable, h.ws.Roots()...), env.TempDirs()...), w...)
	s, ok := h.cfg.Env.(commandSandboxer)
	if !ok {
		return argv, nil
	}
	return s.SandboxCommand(p, argv)
}

// warmCode starts the harness's own servers in the background, once,
// unless the editor answers for them.
func (h *Harness) warmCode() {
	if h.code.mgr == nil || h.cfg.Diagnostics.Disabled && !h.hasTool("lsp") && !h.hasTool("diagnostics") {
		return
	}
	if ei, ok := h.getUI().(interface{ EditorAnswers() bool }); ok && ei.EditorAnswers() {
		return
	}
	h.code.warm.Do(h.code.mgr.Warm)
}

func (h *Harness) hasTool(name string) bool {
	for _, t := range h.tools {
		if t.Definition().Name == name {
			return true
		}
	}
	return false
}

func (h *Harness) closeCode() {
	if h.code.mgr != nil && h.code.owned {
		h.code.mgr.Close()
	}
}

// noteOpen records a file the agent read, wrote or edited.
func (h *Harness) noteOpen(abs string) {
	h.code.mu.Lock()
	defer h.code.mu.Unlock()
	for i, p := range h.code.open {
		if p == abs {
			h.code.open = append(h.code.open[:i], h.code.open[i+1:]...)
			break
		}
	}
	h.code.open = append(h.code.open, abs)
	if len(h.code.open) > maxOpenFiles {
		h.code.open = h.code.open[len(h.code.open)-maxOpenFiles:]
	}
}

func (h *Harness) openFiles() []string {
	h.code.mu.Lock()
	defer h.code.mu.Unlock()
	return append([]string(nil), h.code.open...)
}

// collectDiagnostics asks the editor when a client can answer, else the
// harness's own servers, within the settle time plus answerGrace (the
// cold start of a server may take langserver.ColdStart).
func (h *Harness) collectDiagnostics(ctx context.Context, paths []string, settle time.Duration) ([]tools.Diagnostic, error) {
	if ei, ok := h.getUI().(EditorIntel); ok {
		cctx, cancel := context.WithTimeout(ctx, settle+answerGrace)
		ds, err := ei.EditorDiagnostics(cctx, paths, settle)
		cancel()
		if !errors.Is(err, tools.ErrNoUI) {
			if err != nil && cctx.Err() != nil && ctx.Err() == nil {
				return nil, fmt.Errorf("%w: the editor did not answer within %s", errSkipped, settle+answerGrace)
			}
			return ds, err
		}
	}
	if h.code.mgr == nil {
		return nil, tools.ErrNoCodeIntel
	}
	h.code.warm.Do(h.code.mgr.Warm)
	cctx, cancel := context.WithTimeout(ctx, max(settle, langserver.ColdStart)+answerGrace)
	defer cancel()
	fds, err := h.code.mgr.Diagnostics(cctx, paths, settle)
	var out []tools.Diagnostic
	for _, f := range fds {
		for _, d := range f.Diagnostics {
			out = append(out, fromLSP(f.Path, d))
		}
	}
	if err == nil && cctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w: the language server did not answer in time", errSkipped)
	}
	return out, err
}

// errSkipped marks a change whose diagnostics were skipped (logged only).
var errSkipped = errors.New("diagnostics skipped")

func fromLSP(path string, d langserver.Diagnostic) tools.Diagnostic {
	code := ""
	switch c := d.Code.(type) {
	case string:
		code = c
	case float64:
		code = fmt.Sprint(int64(c))
	case nil:
	default:
		code = fmt.Sprint(c)
	}
	return tools.Diagnostic{
		Path: path, Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1,
		Severity: int(d.Severity), Message: d.Message, Source: d.Source, Code: code,
	}
}

// change is what diagPrepare saw before a tool ran.
type change struct {
	paths  []string                // the files the call may change
	stamps map[string]env.FileInfo // bash: the open files before
	before map[string][]tools.Diagnostic
	err    error // the snapshot failed
}

// diagPrepare snapshots the problems of the files call may change: the
// file of a write or an edit, the open files for a bash. nil: nothing to
// watch.
func (h *Harness) diagPrepare(ctx context.Context, call tools.Call) *change {
	var a struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	switch call.Name {
	case "read", "write", "edit":
		_ = json.Unmarshal(call.Args, &a)
		if a.Path == "" {
			a.Path = a.FilePath
		}
		if a.Path == "" {
			return nil
		}
		abs := h.cfg.Env.Resolve(strings.TrimPrefix(a.Path, "@"))
		if _, inside := h.ws.Judge(abs, true); !inside {
			return nil
		}
		h.noteOpen(abs)
		if call.Name == "read" || h.cfg.Diagnostics.Disabled {
			return nil
		}
		ch := &change{paths: []string{abs}}
		if _, err := h.cfg.Env.Stat(ctx, abs); err == nil {
			ch.before, ch.err = h.snapshot(ctx, ch.paths)
		}
		return ch
	case "bash":
		if h.cfg.Diagnostics.Disabled {
			return nil
		}
		ch := &change{stamps: map[string]env.FileInfo{}}
		for _, p := range h.openFiles() {
			if fi, err := h.cfg.Env.Stat(ctx, p); err == nil {
				ch.stamps[p] = fi
				ch.paths = append(ch.paths, p)
			}
		}
		if len(ch.paths) == 0 {
			return nil
		}
		ch.before, ch.err = h.snapshot(ctx, ch.paths)
		return ch
	}
	return nil
}

func (h *Harness) snapshot(ctx context.Context, paths []string) (map[string][]tools.Diagnostic, error) {
	ds, err := h.collectDiagnostics(ctx, paths, h.settle())
	m := map[string][]tools.Diagnostic{}
	for _, d := range ds {
		m[d.Path] = append(m[d.Path], d)
	}
	return m, err
}

// diagFinish appends the new problems of the changed files to res.
func (h *Harness) diagFinish(ctx context.Context, ch *change, res tools.Result) tools.Result {
	if res.IsError || ctx.Err() != nil {
		return res
	}
	paths := ch.paths
	if ch.stamps != nil {
		paths = nil
		for _, p := range ch.paths {
			fi, err := h.cfg.Env.Stat(ctx, p)
			if err == nil && (fi.Size != ch.stamps[p].Size || !fi.ModTime.Equal(ch.stamps[p].ModTime)) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return res
		}
	}
	if ch.err != nil {
		return h.diagUnavailable(res, ch.err)
	}
	after, err := h.collectDiagnostics(ctx, paths, h.settle())
	if err != nil {
		res = h.diagUnavailable(res, err)
		if len(after) == 0 {
			return res
		}
	}
	lines := newProblems(ch.before, after, h.Cwd())
	if len(lines) == 0 {
		return res
	}
	lines = capLines(lines)
	res.Diagnostics = append(res.Diagnostics, lines...)
	res = withDiagnosticsDetails(res, res.Diagnostics)
	return appendText(res, "New problems after this change:\n"+strings.Join(lines, "\n"))
}

// capLines keeps the first maxShownDiagnostics lines and says how many
// more there were.
func capLines(lines []string) []string {
	if len(lines) <= maxShownDiagnostics {
		return lines
	}
	return append(lines[:maxShownDiagnostics:maxShownDiagnostics], fmt.Sprintf("and %d more", len(lines)-maxShownDiagnostics))
}

// diagUnavailable says once per reason that diagnostics are unavailable;
// a file no server serves, and a change skipped for time, are only logged.
func (h *Harness) diagUnavailable(res tools.Result, err error) tools.Result {
	if errors.Is(err, tools.ErrNoCodeIntel) || errors.Is(err, langserver.ErrNoServer) || errors.Is(err, context.Canceled) {
		return res
	}
	if errors.Is(err, errSkipped) {
		h.log.Warn("diagnostics: skipped for this change", "err", err)
		return res
	}
	reason := err.Error()
	h.code.mu.Lock()
	if h.code.reported == nil {
		h.code.reported = map[string]bool{}
	}
	seen := h.code.reported[reason]
	h.code.reported[reason] = true
	h.code.mu.Unlock()
	h.log.Warn("diagnostics unavailable", "err", err)
	if seen {
		return res
	}
	line := "diagnostics unavailable (" + reason + ")"
	res.Diagnostics = append(res.Diagnostics, line)
	res = withDiagnosticsDetails(res, res.Diagnostics)
	return appendText(res, line)
}

// newProblems are the errors and warnings of after that before does not
// have, compared by severity, message, source and code (lines move when a
// file changes), formatted one per line.
func newProblems(before map[string][]tools.Diagnostic, after []tools.Diagnostic, cwd string) []string {
	type key struct {
		path, msg, src, code string
		sev                  int
	}
	k := func(d tools.Diagnostic) key {
		sev := d.Severity
		if sev == 0 {
			sev = 1
		}
		return key{d.Path, d.Message, d.Source, d.Code, sev}
	}
	seen := map[key]int{}
	for _, ds := range before {
		for _, d := range ds {
			seen[k(d)]++
		}
	}
	var out []string
	for _, d := range after {
		if d.Severity > 2 {
			continue
		}
		if kk := k(d); seen[kk] > 0 {
			seen[kk]--
			continue
		}
		if d.Severity == 0 {
			d.Severity = 1
		}
		out = append(out, d.Format(cwd))
	}
	return out
}

// appendText adds text to the result's last text block (a new block when
// it has none).
func appendText(res tools.Result, text string) tools.Result {
	if res.Display != "" {
		// The display-only version says what the model is told, so that a
		// reopened session's history shows the same as the live item.
		res.Display = strings.TrimRight(res.Display, "\n") + "\n\n" + text
	}
	content := append([]llm.ContentBlock(nil), res.Content...)
	for i := len(content) - 1; i >= 0; i-- {
		if content[i].Type == llm.BlockText {
			content[i].Text = strings.TrimRight(content[i].Text, "\n") + "\n\n" + text
			res.Content = content
			return res
		}
	}
	res.Content = append(content, llm.TextBlock(text))
	return res
}

var _ tools.CodeIntel = (*host)(nil)

// Diagnostics is the diagnostics tool's back channel: the current problems
// of paths, or of the files open in the session.
func (x *host) Diagnostics(ctx context.Context, paths []string) ([]tools.Diagnostic, error) {
	h := x.h
	if len(paths) == 0 {
		paths = h.openFiles()
		if len(paths) == 0 {
			return nil, nil
		}
	}
	return h.collectDiagnostics(ctx, paths, h.settle())
}

// LSP is the lsp tool's back channel: the editor's servers when a client
// answers, else the harness's own.
func (x *host) LSP(ctx context.Context, q tools.LSPQuery) (tools.LSPResult, error) {
	h := x.h
	if ei, ok := h.getUI().(EditorIntel); ok {
		cctx, cancel := context.WithTimeout(ctx, langserver.ColdStart+answerGrace)
		r, err := ei.EditorLSP(cctx, q)
		cancel()
		if !errors.Is(err, tools.ErrNoUI) {
			return r, err
		}
	}
	if h.code.mgr == nil {
		return tools.LSPResult{}, tools.ErrNoCodeIntel
	}
	h.code.warm.Do(h.code.mgr.Warm)
	cctx, cancel := context.WithTimeout(ctx, langserver.ColdStart+answerGrace)
	defer cancel()
	pos := langserver.Position{Line: uint32(q.Line - 1), Character: uint32(q.Column - 1)}
	nr, err := h.code.mgr.Navigate(cctx, q.Op, q.Path, pos, q.Query)
	if err != nil {
		if errors.Is(err, langserver.ErrNoServer) {
			return tools.LSPResult{}, fmt.Errorf("%w (%s)", tools.ErrNoCodeIntel, q.Path)
		}
		return tools.LSPResult{}, err
	}
	out := tools.LSPResult{Hover: nr.Hover}
	for _, l := range nr.Locations {
		out.Locations = append(out.Locations, tools.LSPLocation{
			Path: l.Path, Line: int(l.Range.Start.Line) + 1, Column: int(l.Range.Start.Character) + 1,
			EndLine: int(l.Range.End.Line) + 1, EndColumn: int(l.Range.End.Character) + 1, Text: l.Label,
		})
	}
	return out, nil
}
