package harness

import (
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// TestRunnerTakeByKind: take hands out exactly the queue of the kind asked
// for, empties it, announces the queue once, and refuses a kind that has
// no queue.
func TestRunnerTakeByKind(t *testing.T) {
	r := newRunner(nil)
	var evs []Event
	r.bus.mu.Lock()
	r.bus.subscribeLocked(func(ev Event) { evs = append(evs, ev) })
	r.bus.mu.Unlock()
	r.steering = []llm.Message{llm.UserText("steer me", 1)}
	r.followUp = []llm.Message{llm.UserText("after that", 2)}

	got := r.take(DeliveryFollowUp)
	if len(got) != 1 || got[0].Text() != "after that" {
		t.Fatalf("take(followUp) = %v", got)
	}
	if len(r.followUp) != 0 || len(r.steering) != 1 {
		t.Fatalf("after take(followUp): steering %d, followUp %d", len(r.steering), len(r.followUp))
	}
	if len(evs) != 1 || evs[0].Type != EvQueueUpdate || len(evs[0].Steering) != 1 || len(evs[0].FollowUp) != 0 {
		t.Fatalf("events after take(followUp) = %+v", evs)
	}
	if got := r.take(DeliverySteer); len(got) != 1 || got[0].Text() != "steer me" {
		t.Fatalf("take(steer) = %v", got)
	}
	if got := r.take(DeliverySteer); got != nil {
		t.Fatalf("take of an empty queue = %v", got)
	}
	if len(evs) != 2 {
		t.Fatalf("an empty take announced the queue: %d events", len(evs))
	}
	for _, k := range []Delivery{DeliveryRun, DeliveryInterrupt, ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("take(%q) did not refuse", k)
				}
			}()
			r.take(k)
		}()
	}
}
