package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Issue 29 left-overs: the diagnostics lines of a tool item survive a
// reopen, and an ACP session's write gets gopls's error (ACP has no
// diagnostics request, so pi-lsp runs gopls itself).

func TestEditorDiagnosticsSurviveAReopen(t *testing.T) {
	writeArgs, _ := json.Marshal(map[string]string{"path": "a.go", "content": frobAfter})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Text: "done"},
	})
	writeFile(t, filepath.Join(e.workspace, "a.go"), frobBefore)
	s := e.start(startOpt{caps: diagCaps(), args: []string{"--yolo"}, extraEnv: []string{settleSettings(t, e, "")}})
	(&fakeEditor{}).install(s)
	s.prompt("add a frobnicate call")
	s.waitIdle()
	path := s.state().Path
	want := "a.go:5:2: error: undefined: frobnicate (compiler)"
	// itemDiagnostics waits until the display copy has the write's item
	// with diagnostics (frames arrive after the run ends) and returns them.
	itemDiagnostics := func(what string) []string {
		t.Helper()
		var got []string
		s.waitFor(what, func() bool {
			v, err := s.Display()
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range v.State.Items {
				if it.ID == "w1" && it.Status == "done" {
					got = it.Diagnostics
					return len(got) > 0
				}
			}
			return false
		})
		return got
	}
	if got := itemDiagnostics("the live item's diagnostics"); len(got) != 1 || got[0] != want {
		t.Fatalf("live tool item diagnostics: %q", got)
	}

	// Away and back: the display is rebuilt from the session's entries.
	s.call("session/new", map[string]any{}, nil)
	s.waitFor("the new session's empty display", func() bool {
		v, _ := s.Display()
		return v.State.Session.Path != path && len(v.State.Items) == 0
	})
	s.call("session/open", map[string]any{"path": path}, nil)
	if got := itemDiagnostics("the reopened item's diagnostics"); len(got) != 1 || got[0] != want {
		t.Fatalf("reopened tool item diagnostics: %q", got)
	}
}

func TestACPWriteResultCarriesGoplsError(t *testing.T) {
	gopls := goplsPath(t)
	main := "package main\n\nfunc main() {\n\t_ = helper()\n\tfrobnicate()\n}\n"
	writeArgs, _ := json.Marshal(map[string]string{"path": "main.go", "content": main})
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: string(writeArgs)}}},
		{Text: "wrote it"},
	})
	writeFile(t, filepath.Join(e.workspace, "go.mod"), "module example.com/m\n\ngo 1.21\n")
	writeFile(t, filepath.Join(e.workspace, "lib.go"), "package main\n\n// helper is declared in another file.\nfunc helper() int { return 1 }\n")
	a := e.startACP("PATH="+filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &ns); err != nil {
		t.Fatal(err)
	}
	a.seen = nil
	a.call("session/prompt", map[string]any{"sessionId": ns.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "add a call"}}})
	a.close()

	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	writeResult := parseRequest(t, reqs[1]).toolResult("w1")
	if !strings.Contains(writeResult, "main.go:5:2: error: undefined: frobnicate") {
		t.Fatalf("the write's result has no gopls error: %s", writeResult)
	}
	if strings.Contains(writeResult, "helper") {
		t.Fatalf("a call of a function declared in another file was reported: %s", writeResult)
	}
	if left := goplsOf(e.workspace); len(left) > 0 {
		t.Fatalf("gopls outlived the ACP session: %v", left)
	}
}
