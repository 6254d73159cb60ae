package integration

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestServerLogsAreMasked: a hook that fails prints an environment secret
// on its stderr, which the server logs on its own stderr (an editor's
// output panel). The log line is there, with the secret masked.
func TestServerLogsAreMasked(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"true"}`}}},
		{Text: "done"},
	})
	e.userSettings(`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
  "command": "echo \"could not reach the API with $MY_SERVICE_API_KEY\" >&2; exit 1"}]}]}}`)
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"MY_SERVICE_API_KEY=" + envSecret}})
	s.prompt("run it")
	s.waitIdle()
	_ = s.Close()
	_ = s.cmd.Wait()
	log := s.stderr.String()
	if strings.Contains(log, envSecret) {
		t.Fatalf("the secret is in the server's log:\n%s", log)
	}
	if !strings.Contains(log, "hook exited with an error") || !strings.Contains(log, "could not reach the API with ••••••") {
		t.Fatalf("want the hook's failure logged with the secret masked:\n%s", log)
	}
}
