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
// of a harness that is idle.
func TestReviewFollowUpQueuedWhileRunEndsIsDelivered(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Match: "FIRST", Text: "first answer"},
		{Match: "LATE", Text: "late answer"},
	})
	ctx := context.Background()
	var hookOnce, lowOnce, highOnce sync.Once
	// Queued during the run (deferred, no event): flushed at turn_end.
	f.h.OnBeforeProviderRequest(func(context.Context, *llm.Request) {
		hookOnce.Do(func() { _ = f.h.SetThinking(ctx, llm.ThinkingLow) })
	})
	queued := make(chan struct{})
	f.h.Subscribe(func(ev harness.Event) {
		if ev.Type != harness.EvThinking {
			return
		}
		switch ev.Thinking {
		case llm.ThinkingLow:
			// Flushed at the last turn_end: this change is queued again and
			// flushed by the run's final cleanup, after the loop took the
			// queue for the last time.
			lowOnce.Do(func() { _ = f.h.SetThinking(ctx, llm.ThinkingHigh) })
		case llm.ThinkingHigh:
			highOnce.Do(func() {
				go func() {
					defer close(queued)
					if err := f.h.FollowUp(ctx, "LATE follow-up"); err != nil {
						t.Errorf("follow-up: %v", err)
					}
				}()
				// Wait (without holding the harness) until it is queued or
				// has started a run of its own.
				waitFor(t, "the follow-up to be taken", func() bool {
					_, fu := f.h.Queue()
					return len(fu) == 1 || f.srv.Pending() == 0
				})
			})
		}
	})
	f.prompt(t, "FIRST prompt")
	<-queued
	waitFor(t, "the late follow-up to be answered", func() bool {
		return f.srv.Pending() == 0 && !f.h.IsRunning()
	})
	f.wait(t)
	if s, fu := f.h.Queue(); len(s)+len(fu) != 0 {
		t.Fatalf("messages left in the queue of an idle harness: %v %v", s, fu)
	}
	roles := f.roles(t)
	if len(roles) != 4 || roles[2] != "user:LATE follow-up" {
		t.Fatalf("session: %v", roles)
	}
}
