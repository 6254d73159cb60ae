package harness_test

import (
	"context"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A follow-up queued while the run is finishing (after its last look at the
// queue, before it is idle) must still be delivered, not left in the queue
// of a harness that is idle; a change queued then is applied, not lost.
// The agent_end hook runs exactly there: after the loop's last look.
func TestReviewFollowUpQueuedWhileRunEndsIsDelivered(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Match: "FIRST", Text: "first answer"},
		{Match: "LATE", Text: "late answer"},
	})
	ctx := context.Background()
	var once sync.Once
	f.h.OnAgentEnd(func(context.Context, string, bool) harness.AgentEndVerdict {
		once.Do(func() {
			if err := f.h.SetThinking(ctx, llm.ThinkingHigh); err != nil {
				t.Errorf("thinking: %v", err)
			}
			if err := f.h.FollowUp(ctx, "LATE follow-up"); err != nil {
				t.Errorf("follow-up: %v", err)
			}
		})
		return harness.AgentEndVerdict{}
	})
	f.prompt(t, "FIRST prompt")
	f.wait(t)
	if f.srv.Pending() != 0 {
		t.Fatalf("the late follow-up was not answered")
	}
	if s, fu := f.h.Queue(); len(s)+len(fu) != 0 {
		t.Fatalf("messages left in the queue of an idle harness: %v %v", s, fu)
	}
	if got := f.h.Thinking(); got != llm.ThinkingHigh {
		t.Fatalf("thinking level %q: the change queued as the run ended was lost", got)
	}
	roles := f.roles(t)
	if len(roles) != 4 || roles[2] != "user:LATE follow-up" {
		t.Fatalf("session: %v", roles)
	}
}
