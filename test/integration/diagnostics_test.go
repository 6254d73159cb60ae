package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Issue 29 over the real binary: the problems a change makes, from the
// editor (editor/diagnostics), appended to that change's tool result.

const frobBefore = "package main\n\nfunc main() {\n\tvar unused int\n}\n"

// frobAfter calls an undefined function at line 5, column 2.
const frobAfter = "package main\n\nfunc main() {\n\tvar unused int\n\tfrobnicate()\n}\n"

// fakeEditor answers editor/diagnostics as an editor with a Go language
// server would: from the files on disk, a warning for an unused variable
// and an error for a call of frobnicate.
type fakeEditor struct {
	mu       sync.Mutex
	requests []map[string]any
}

func (f *fakeEditor) install(s *server) {
	s.Handle("editor/diagnostics", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct {
			Paths    []string `json:"paths"`
			SettleMs int      `json:"settleMs"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		var raw map[string]any
		_ = json.Unmarshal(params, &raw)
		f.mu.Lock()
		f.requests = append(f.requests, raw)
		f.mu.Unlock()
		files := []map[string]any{}
		for _, path := range p.Paths {
			data, _ := os.ReadFile(path)
			diags := []map[string]any{}
			for i, line := range strings.Split(string(data), "\n") {
				if c := strings.Index(line, "var unused"); c >= 0 {
					diags = append(diags, lspDiag(i, c+4, 2, "declared and not used: unused", "compiler"))
				}
				if c := strings.Index(line, "frobnicate("); c >= 0 {
					diags = append(diags, lspDiag(i, c, 1, "undefined: frobnicate", "compiler"))
				}
			}
			files = append(files, map[string]any{"path": path, "diagnostics": diags})
		}
		return map[string]any{"files": files}, nil
	})
}

func lspDiag(line, char, sev int, msg, src string) map[string]any {
	return map[string]any{
		"range":    map[string]any{"start": map[string]any{"line": line, "character": char}, "end": map[string]any{"line": line, "character": char + 3}},
		"severity": sev, "source": src, "message": msg, "code": "UndeclaredName",
	}
}

func diagCaps() map[string]any {
	return map[string]any{"ui": map[string]any{"approvals": true, "questions": true, "planApproval": true}, "diagnostics": true}
}

// settleSettings writes a settings file with a short settle time.
func settleSettings(t *testing.T, e *env, extra string) string {
	t.Helper()
	p := filepath.Join(e.home, "pi-lsp-settings.json")
	writeFile(t, p, `{"diagnostics": {"settleMs": 300}`+extra+`}`)
	return "PI_LSP_SETTINGS=" + p
}

func TestEditorDiagnosticsAfterWrite(t *testing.T) {
	writeArgs, _ := json.Marshal(map[string]string{"path": "a.go", "content": frobAfter})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Match: "undefined: frobnicate", ToolCalls: []llmtest.ToolCall{{ID: "d1", Name: "diagnostics", Arguments: `{"path":"a.go"}`}}},
		{Text: "fixed soon"},
	})
	file := filepath.Join(e.workspace, "a.go")
	writeFile(t, file, frobBefore)
	s := e.start(startOpt{caps: diagCaps(), args: []string{"--yolo"}, extraEnv: []string{settleSettings(t, e, "")}})
	ed := &fakeEditor{}
	ed.install(s)
	s.prompt("add a frobnicate call")
	s.waitIdle()

	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	// The write's result (in the 2nd request) carries the new error only.
	writeResult := parseRequest(t, reqs[1]).toolResult("w1")
	if !strings.Contains(writeResult, "a.go:5:2: error: undefined: frobnicate (compiler)") {
		t.Fatalf("the write's result has no new diagnostic: %s", writeResult)
	}
	if strings.Contains(writeResult, "declared and not used") {
		t.Fatalf("a warning present before the write was reported as new: %s", writeResult)
	}
	// The diagnostics tool returns the editor's current problems.
	third := string(reqs[2])
	if !strings.Contains(third, "a.go:4:6: warning: declared and not used: unused (compiler)") || !strings.Contains(third, "a.go:5:2: error: undefined: frobnicate") {
		t.Fatalf("the diagnostics tool's result: %s", third)
	}
	// The editor was asked with absolute paths and the settle time.
	ed.mu.Lock()
	first := ed.requests[0]
	ed.mu.Unlock()
	if ps, _ := first["paths"].([]any); len(ps) != 1 || ps[0] != file || first["settleMs"] != float64(300) {
		t.Fatalf("editor/diagnostics params: %v", first)
	}
	// The display shows them under the write's tool item.
	v, _ := s.Display()
	found := false
	for _, it := range v.State.Items {
		if it.ID == "w1" {
			found = len(it.Diagnostics) == 1 && it.Diagnostics[0] == "a.go:5:2: error: undefined: frobnicate (compiler)"
			if !found {
				t.Fatalf("tool item diagnostics: %q", it.Diagnostics)
			}
		}
	}
	if !found {
		t.Fatal("no write tool item")
	}
}

func TestEditorDiagnosticsSilentClientDoesNotHoldTheRun(t *testing.T) {
	writeArgs, _ := json.Marshal(map[string]string{"path": "a.go", "content": frobAfter})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Text: "done"},
	})
	writeFile(t, filepath.Join(e.workspace, "a.go"), frobBefore)
	s := e.start(startOpt{caps: diagCaps(), args: []string{"--yolo"}, extraEnv: []string{settleSettings(t, e, "")}})
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	asked := make(chan struct{}, 8)
	s.Handle("editor/diagnostics", func(ctx context.Context, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		select {
		case <-never:
		case <-ctx.Done():
		}
		return nil, context.Canceled
	})
	s.prompt("write it")
	s.waitIdle()
	if len(asked) == 0 {
		t.Fatal("the editor was never asked")
	}
	if got := readFile(t, filepath.Join(e.workspace, "a.go")); got != frobAfter {
		t.Fatalf("file: %q", got)
	}
	last := lastRequest(t, e)
	if !strings.Contains(last, "Successfully wrote") && !strings.Contains(last, "wrote") {
		t.Fatalf("the run did not go on: %s", last)
	}
	if strings.Contains(last, "undefined: frobnicate") {
		t.Fatalf("a silent editor produced diagnostics: %s", last)
	}
}

func TestEditorDiagnosticsMalformedAnswerIgnored(t *testing.T) {
	writeArgs, _ := json.Marshal(map[string]string{"path": "a.go", "content": frobAfter})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Text: "done"},
	})
	s := e.start(startOpt{caps: diagCaps(), args: []string{"--yolo"}, extraEnv: []string{settleSettings(t, e, "")}})
	s.Handle("editor/diagnostics", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct {
			Paths []string `json:"paths"`
		}
		_ = json.Unmarshal(params, &p)
		return map[string]any{"files": []any{
			map[string]any{"path": "relative.go", "diagnostics": []any{lspDiag(0, 0, 1, "relative path", "x")}},
			map[string]any{"path": p.Paths[0], "diagnostics": []any{
				lspDiag(-3, 0, 1, "negative line", "x"),
				lspDiag(0, 0, 9, "bad severity", "x"),
				lspDiag(4, 1, 1, "kept", "x"),
			}},
		}}, nil
	})
	s.prompt("write it")
	s.waitIdle()
	last := lastRequest(t, e)
	if !strings.Contains(last, "a.go:5:2: error: kept (x)") {
		t.Fatalf("the well-formed diagnostic is missing: %s", last)
	}
	for _, bad := range []string{"relative path", "negative line", "bad severity"} {
		if strings.Contains(last, bad) {
			t.Fatalf("malformed diagnostic %q reached the model: %s", bad, last)
		}
	}
}

func TestEditorLSPDefinition(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "l1", Name: "lsp", Arguments: `{"op":"definition","path":"main.go","line":4,"column":6}`}}},
		{Text: "found it"},
	})
	lib := filepath.Join(e.workspace, "lib.go")
	writeFile(t, lib, "package main\n\n// helper is declared in another file.\nfunc helper() int { return 1 }\n")
	writeFile(t, filepath.Join(e.workspace, "main.go"), "package main\n\nfunc main() {\n\t_ = helper()\n}\n")
	s := e.start(startOpt{caps: diagCaps(), args: []string{"--yolo"}})
	var got map[string]any
	var mu sync.Mutex
	s.Handle("editor/lsp", func(_ context.Context, params json.RawMessage) (any, error) {
		mu.Lock()
		_ = json.Unmarshal(params, &got)
		mu.Unlock()
		return map[string]any{"locations": []any{
			map[string]any{"path": lib, "line": 4, "column": 6, "endLine": 4, "endColumn": 12},
			map[string]any{"path": "relative.go", "line": 1, "column": 1},
		}}, nil
	})
	s.prompt("where is helper")
	s.waitIdle()
	mu.Lock()
	defer mu.Unlock()
	if got["op"] != "definition" || got["path"] != filepath.Join(e.workspace, "main.go") || got["line"] != float64(4) || got["column"] != float64(6) {
		t.Fatalf("editor/lsp params: %v", got)
	}
	last := lastRequest(t, e)
	if !strings.Contains(last, "lib.go:4:6: func helper() int { return 1 }") || strings.Contains(last, "relative.go") {
		t.Fatalf("the lsp tool's result: %s", last)
	}
}
