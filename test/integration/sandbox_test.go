package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// sandboxBase is a directory outside every directory the workspace-write
// sandbox lets commands write (the temp directories are writable), so that
// a write beside the workspace is one the sandbox refuses.
func sandboxBase(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory for a directory outside the temp dirs")
	}
	base, err := os.MkdirTemp(home, ".pi-lsp-sandbox-test-")
	if err != nil {
		t.Skipf("cannot create a directory outside the temp dirs: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, tmp := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if strings.HasPrefix(base, tmp+"/") {
			t.Skipf("the home directory %s is under a temp directory", home)
		}
	}
	return base
}

func bashCall(id, command string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "bash", Arguments: mustJSON(map[string]any{"command": command})}
}

type sandboxState struct {
	Sandbox struct {
		Mode      string `json:"mode"`
		Available bool   `json:"available"`
	} `json:"sandbox"`
}

// Under the default sandbox, with YOLO, a command cannot write beside the
// workspace (the sandbox's EACCES, and the result says how to allow it)
// but writes inside it; Plan mode's commands cannot write at all.
func TestSandboxWorkspaceWriteAndPlanReadOnly(t *testing.T) {
	e := newEnvAt(t, sandboxBase(t), nil)
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{bashCall("b1", "touch ../outside"), bashCall("b2", "touch inside && echo made")}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{args: []string{"--yolo"}})
	var st sandboxState
	s.call("session/state", nil, &st)
	if st.Sandbox.Mode != "workspace-write" || !st.Sandbox.Available {
		t.Fatalf("sandbox state: %+v", st.Sandbox)
	}
	s.prompt("touch both")
	s.waitIdle()
	res := toolResults(s)
	if len(res) != 2 {
		t.Fatalf("results: %q", res)
	}
	if !strings.Contains(res[0], "Permission denied") || !strings.Contains(res[0], "[sandbox]") || !strings.Contains(res[0], "--root") {
		t.Fatalf("outside write result: %q", res[0])
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.workspace), "outside")); err == nil {
		t.Fatal("the sandboxed command wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "inside")); err != nil || !strings.Contains(res[1], "made") {
		t.Fatalf("the inside write failed: %v %q", err, res[1])
	}

	s.call("mode/set", map[string]any{"mode": "plan"}, nil)
	s.call("session/state", nil, &st)
	if st.Sandbox.Mode != "read-only" {
		t.Fatalf("plan sandbox: %+v", st.Sandbox)
	}
	var br struct {
		Output   string `json:"output"`
		ExitCode *int   `json:"exitCode"`
	}
	s.call("agent/bash", map[string]any{"command": "touch plan-file"}, &br)
	if br.ExitCode == nil || *br.ExitCode == 0 || !strings.Contains(br.Output, "Permission denied") {
		t.Fatalf("plan bash: %+v", br)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "plan-file")); err == nil {
		t.Fatal("plan mode's command wrote a file")
	}
	// The display shows the sandbox mode.
	s.waitShown(`"read-only"`, "the display never showed the read-only sandbox")
}

// With the switch that pretends Landlock is missing: one warning in the
// display and in window/logMessage, then commands run unsandboxed; under
// sandbox.required they are refused.
func TestSandboxMissingLandlock(t *testing.T) {
	e := newEnvAt(t, sandboxBase(t), nil)
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{bashCall("b1", "touch ../outside1"), bashCall("b2", "touch ../outside2")}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"PI_LSP_NO_LANDLOCK=1"}, initOpts: map[string]any{"logLevel": "warn"}})
	var st sandboxState
	s.call("session/state", nil, &st)
	if st.Sandbox.Mode != "unavailable" || st.Sandbox.Available {
		t.Fatalf("sandbox state: %+v", st.Sandbox)
	}
	s.prompt("touch")
	s.waitIdle()
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.workspace), "outside2")); err != nil {
		t.Fatal("without Landlock the command should run unsandboxed")
	}
	logs := 0
	for _, n := range s.Notifications("window/logMessage") {
		if strings.Contains(string(n.Params), "without a sandbox") {
			logs++
		}
	}
	shown := waitDisplay(s, "without a sandbox")
	if logs != 1 || shown != 1 {
		t.Fatalf("warning: %d logMessages, %d display items; want 1 and 1", logs, shown)
	}

	settingsPath := filepath.Join(e.home, "pi-lsp.json")
	writeFile(t, settingsPath, `{"sandbox":{"required":true}}`)
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{bashCall("b3", "touch ../refused")}},
		llmtest.Response{Text: "done"},
	)
	s2 := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"PI_LSP_NO_LANDLOCK=1", "PI_LSP_SETTINGS=" + settingsPath}})
	s2.prompt("touch")
	s2.waitIdle()
	res := toolResults(s2)
	if len(res) != 1 || !strings.Contains(res[0], "sandbox.required") {
		t.Fatalf("required result: %q", res)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.workspace), "refused")); err == nil {
		t.Fatal("sandbox.required without Landlock still ran the command")
	}
}

// displayTexts are the texts of the display items the client was sent.
func displayTexts(s *server) []string {
	var out []string
	for _, n := range s.Notifications("display/state") {
		var any map[string]any
		_ = json.Unmarshal(n.Params, &any)
		out = append(out, collectItemTexts(any)...)
	}
	return out
}

// collectItemTexts finds every item "text" of kind info in a display frame
// (full state or ops).
func collectItemTexts(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if x["kind"] == "info" {
			if t, ok := x["text"].(string); ok {
				out = append(out, t)
			}
		}
		for _, c := range x {
			out = append(out, collectItemTexts(c)...)
		}
	case []any:
		for _, c := range x {
			out = append(out, collectItemTexts(c)...)
		}
	}
	return out
}

// waitDisplay waits until a display info item contains substr (display
// frames follow within the scheduler's window) and returns how many do.
func waitDisplay(s *server, substr string) int {
	s.t.Helper()
	n := 0
	s.waitFor("display notice "+substr, func() bool {
		n = strings.Count(strings.Join(displayTexts(s), "\n"), substr)
		return n > 0
	})
	return n
}
