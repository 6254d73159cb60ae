package integration

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// agent/retry runs again after a provider error, from the branch as it
// stands: no new user message, the failed answer never reaches the model,
// and the answer arrives. With nothing to retry it answers -32602.
func TestRetryAfterProviderError(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Status: 400, Error: "the provider is having a bad day"},
		{Match: "please answer", Text: "here is the answer"},
	})
	s := e.start(startOpt{})
	wantCode(t, s, "agent/retry", nil, -32602, "nothing to retry")

	s.prompt("please answer")
	s.waitIdle()
	s.waitShown("the provider is having a bad day", "the provider error was not shown")
	var res struct {
		Accepted bool `json:"accepted"`
	}
	s.call("agent/retry", nil, &res)
	if !res.Accepted {
		t.Fatalf("retry not accepted")
	}
	s.waitIdle()
	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: %d, want 2", len(reqs))
	}
	if strings.Count(string(reqs[1]), "please answer") != 1 || strings.Contains(string(reqs[1]), "bad day") {
		t.Fatalf("retry request should carry the prompt once and not the failed answer: %.600s", reqs[1])
	}
	var users int
	for _, en := range s.entries() {
		if m, _ := en["message"].(map[string]any); m != nil && m["role"] == "user" {
			users++
		}
	}
	if users != 1 {
		t.Fatalf("user messages in the session: %d, want 1 (retry adds none)", users)
	}
	s.waitShown("here is the answer", "the retried answer did not reach the display")
	wantCode(t, s, "agent/retry", nil, -32602, "did not end with a provider error")
}

// agent/editQueue changes and removes queued follow-ups while the run
// waits (here on an approval, so nothing depends on timing); a stale
// expect answers -32005; the model gets the edited queue.
func TestEditQueuedMessages(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{writeCall("w1", "one.txt", "1")}},
		{Match: "w1", Text: "wrote one"},
		{Match: "EDITED first", Text: "did the edited one"},
	})
	s := e.start(startOpt{})
	asked := make(chan struct{})
	release := make(chan struct{})
	s.Handle("ui/requestApproval", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(asked)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"decision": "approve"}, nil
	})
	s.prompt("write one")
	<-asked
	for _, txt := range []string{"first follow-up", "second follow-up", "third follow-up"} {
		s.call("agent/followUp", map[string]any{"text": txt}, nil)
	}
	s.call("agent/editQueue", map[string]any{"queue": "followUp", "index": 0, "expect": "first follow-up", "text": "EDITED first"}, nil)
	s.call("agent/editQueue", map[string]any{"queue": "followUp", "index": 1, "expect": "second follow-up"}, nil)
	wantCode(t, s, "agent/editQueue", map[string]any{"queue": "followUp", "index": 1, "expect": "second follow-up"}, -32005, "no longer")
	wantCode(t, s, "agent/editQueue", map[string]any{"queue": "later", "index": 0, "expect": "x"}, -32602, "queue")
	wantCode(t, s, "agent/editQueue", map[string]any{"queue": "followUp", "index": 0, "expect": "EDITED first", "text": "  "}, -32602, "must not be empty")

	var snap struct {
		State struct {
			Queue struct {
				FollowUp []string `json:"followUp"`
			} `json:"queue"`
		} `json:"state"`
	}
	s.call("display/snapshot", nil, &snap)
	if got := strings.Join(snap.State.Queue.FollowUp, "|"); got != "EDITED first|third follow-up" {
		t.Fatalf("display queue: %q", got)
	}
	close(release)
	s.waitIdle()
	reqs := e.llm.Requests()
	last := string(reqs[len(reqs)-1])
	if !strings.Contains(last, "EDITED first") || !strings.Contains(last, "third follow-up") ||
		strings.Contains(last, "second follow-up") || strings.Contains(last, "first follow-up") {
		t.Fatalf("the model did not get the edited queue: %.800s", last)
	}
}
