package harness_test

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func withHooks(t *testing.T, settings string) option {
	t.Helper()
	hs, diags := harness.ParseHooks([]byte(settings), "settings.json", "user")
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	return func(c *harness.Config) { c.CommandHooks = &harness.CommandHooks{Hooks: hs} }
}

func TestCommandHookSessionStartAndStop(t *testing.T) {
	// SessionStart adds context to the first run only; a Stop hook that
	// exits 2 once keeps the run going with its stderr.
	marker := t.TempDir() + "/stopped-once"
	f := newFixture(t, []llmtest.Response{
		{Match: "session-context-9", Text: "first answer"},
		{Match: "Stop hook: run the tests first", Text: "ran them"},
		{Text: "second run"},
	}, withHooks(t, `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo session-context-9"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "if [ ! -e `+marker+` ]; then touch `+marker+`; echo 'run the tests first' >&2; exit 2; fi"}]}]
}}`))
	f.prompt(t, "hello")
	f.wait(t)
	f.prompt(t, "again")
	f.wait(t)
	if n := f.srv.Pending(); n != 0 {
		t.Fatalf("pending responses: %d", n)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 || strings.Count(string(reqs[2]), "session-context-9") != 1 {
		t.Fatalf("requests: %d; SessionStart context must be recorded once", len(reqs))
	}
}

func TestCommandHookUserPromptSubmitBlocks(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Text: "never"}},
		withHooks(t, `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q password && { echo 'no passwords in prompts' >&2; exit 2; }; exit 0"}]}]}}`))
	f.prompt(t, "my password is hunter2")
	f.wait(t)
	if len(f.srv.Requests()) != 0 {
		t.Fatal("a blocked prompt reached the model")
	}
	var errs []string
	for _, ev := range f.rec.all() {
		if ev.Type == harness.EvError {
			errs = append(errs, ev.Error)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "no passwords in prompts") {
		t.Fatalf("errors: %v", errs)
	}
}

func TestParseHooksDiagnostics(t *testing.T) {
	hs, diags := harness.ParseHooks([]byte(`{"hooks": {
  "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "a"}, {"type": "prompt", "command": "b"}, {"type": "command"}]},
                 {"matcher": "(", "hooks": [{"type": "command", "command": "c"}]}],
  "Later": [],
  "Stop": [{"hooks": [{"type": "command", "command": "d", "timeout": 2.5}]}]
}}`), "f.json", "project")
	if len(hs) != 2 || !hs[0].Matches("edit") || !hs[0].Matches("write") || hs[0].Matches("bash") || hs[1].Timeout.Seconds() != 2.5 {
		t.Fatalf("hooks: %+v", hs)
	}
	if len(diags) != 4 {
		t.Fatalf("diagnostics: %v", diags)
	}
	_, diags = harness.ParseHooks([]byte("{\n\"hooks\": {,}}"), "f.json", "user")
	if len(diags) != 1 || diags[0].Line != 2 {
		t.Fatalf("syntax error: %+v", diags)
	}
}

func FuzzParseHooks(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "x", "timeout": 3}]}]}}`))
	f.Add([]byte(`{"hooks": {"Stop": [{"matcher": "[", "hooks": []}]}}`))
	f.Add([]byte(`{"hooks": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		hs, _ := harness.ParseHooks(data, "f.json", "user")
		for _, h := range hs {
			if h.Command == "" || h.Timeout <= 0 {
				t.Fatalf("invalid hook accepted: %+v", h)
			}
			_ = h.Matches("bash")
		}
	})
}
