package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// userSettings writes the user's ~/.pi/agent/pi-lsp.json.
func (e *env) userSettings(content string) {
	writeFile(e.t, filepath.Join(e.home, ".pi", "agent", "pi-lsp.json"), content)
}

// TestHookPreToolUseBlocksBash: a PreToolUse hook that exits 2 blocks the
// bash call; the model sees the hook's stderr as the reason and the
// command never runs. The hook gets the event as JSON on stdin.
func TestHookPreToolUseBlocksBash(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"rm -rf build && touch ran.txt"}`}}},
		{Match: "no rm -rf here, use the trash", Text: "ok, blocked"},
	})
	stdin := filepath.Join(t.TempDir(), "stdin.json")
	e.userSettings(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
  "command": "cat > ` + stdin + `; if grep -q 'rm -rf' ` + stdin + `; then echo 'no rm -rf here, use the trash' >&2; exit 2; fi"}]}]}}`)
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("clean up")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the model did not see the reason; last request:\n%.2000s", e.llm.Requests()[len(e.llm.Requests())-1])
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "ran.txt")); err == nil {
		t.Fatal("the blocked command ran")
	}
	in := readFile(t, stdin)
	for _, want := range []string{`"hook_event_name":"PreToolUse"`, `"tool_name":"bash"`, `"tool_input":{"command":"rm -rf build`, `"cwd":"` + e.workspace} {
		if !strings.Contains(in, want) {
			t.Errorf("hook stdin lacks %s: %s", want, in)
		}
	}
}

// TestHookPostToolUseReachesModel: a PostToolUse hook's stdout (plain
// text) is added to the tool result the model sees; a hook on another tool
// does not run.
func TestHookPostToolUseReachesModel(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.go", "package a\nfunc  A(){}\n")}},
		{Match: "gofmt-hook: formatted a.go", Text: "thanks"},
	})
	e.userSettings(`{"hooks": {
  "PostToolUse": [
    {"matcher": "edit|write", "hooks": [{"type": "command", "command": "echo gofmt-hook: formatted $(basename $(sed -n 's/.*\"path\":\"\\([^\"]*\\)\".*/\\1/p'))"}]},
    {"matcher": "read", "hooks": [{"type": "command", "command": "touch read-hook-ran"}]}
  ],
  "Bogus": [{"hooks": [{"type": "command", "command": "true"}]}]
}}`)
	s := e.start(startOpt{args: []string{"--yolo"}, initOpts: map[string]any{"logLevel": "warn"}})
	s.prompt("write a.go")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatalf("the hook's output did not reach the model; last request:\n%.2000s", e.llm.Requests()[len(e.llm.Requests())-1])
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "read-hook-ran")); err == nil {
		t.Fatal("a hook with another matcher ran")
	}
	// The malformed event is a diagnostic; the valid hooks still ran.
	var logged bool
	for _, n := range s.Notifications("window/logMessage") {
		logged = logged || strings.Contains(string(n.Params), `unknown event \"Bogus\"`)
	}
	if !logged {
		t.Fatal("no diagnostic for the unknown event")
	}
}

// TestHookSlowTimesOut: a hook slower than its timeout is killed and the
// run goes on (a timeout warns, it does not block).
func TestHookSlowTimesOut(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"echo bash-ran"}`}}},
		{Match: "bash-ran", Text: "done"},
	})
	marker := filepath.Join(t.TempDir(), "late")
	e.userSettings(`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "sleep 30; touch ` + marker + `", "timeout": 1}]}]}}`)
	s := e.start(startOpt{args: []string{"--yolo"}})
	start := time.Now()
	s.prompt("run it")
	s.waitIdle()
	t.Logf("run with a 1 s hook timeout took %s", time.Since(start).Round(time.Millisecond))
	if e.llm.Pending() != 0 {
		t.Fatal("the run did not go on after the hook timed out")
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the timed-out hook was not killed")
	}
}

// TestHookProjectNeedsApproval: hooks in the project's .pi/pi-lsp.json
// run only after the user approved them once; the answer is remembered in
// the user's file, and a UserPromptSubmit hook adds context.
func TestHookProjectNeedsApproval(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "project-context-7", Text: "saw it", Repeat: true},
	})
	writeFile(t, filepath.Join(e.workspace, ".pi", "pi-lsp.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo project-context-7"}]}]}}`)
	s := e.start(startOpt{})
	ap := &approvals{decisions: []string{"approve"}}
	ap.install(s)
	s.prompt("hello")
	s.waitIdle()
	if ap.count() != 1 || ap.seen[0]["toolName"] != "hooks" || !strings.Contains(ap.seen[0]["display"].(string), "echo project-context-7") {
		t.Fatalf("approval: %v", ap.seen)
	}
	if !strings.Contains(readFile(t, filepath.Join(e.home, ".pi", "agent", "pi-lsp.json")), "enabledProjectHooks") {
		t.Fatal("the approval was not remembered")
	}
	s2 := e.start(startOpt{})
	ap2 := &approvals{}
	ap2.install(s2)
	s2.prompt("again")
	s2.waitIdle()
	if ap2.count() != 0 {
		t.Fatalf("asked again: %v", ap2.seen)
	}
	n := 0
	for _, r := range e.llm.Requests() {
		if strings.Contains(string(r), "project-context-7") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("requests with the hook's context: %d of %d", n, len(e.llm.Requests()))
	}
}

// TestHookRunsUnderTheSandbox: a command hook runs under the same Landlock
// sandbox as bash: in workspace-write it may write the workspace, not the
// folder beside it.
func TestHookRunsUnderTheSandbox(t *testing.T) {
	e := newEnvAt(t, sandboxBase(t), []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{bashCall("b1", "echo hi")}},
		{Text: "done"},
	})
	e.userSettings(`{"hooks": {"PostToolUse": [{"matcher": "bash", "hooks": [{"type": "command",
  "command": "touch hook-inside; touch ../hook-outside"}]}]}}`)
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("say hi")
	s.waitIdle()
	if _, err := os.Stat(filepath.Join(e.workspace, "hook-inside")); err != nil {
		t.Fatalf("the hook did not run in the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.workspace), "hook-outside")); err == nil {
		t.Fatal("the hook wrote outside the workspace: it ran unsandboxed")
	}
}
