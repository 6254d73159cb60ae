package harness_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// TestRunOwnerUnderConcurrentCallers drives one harness from many
// goroutines at once — prompts in every streaming behaviour, steer,
// follow-up, abort, mode switches and session switches — and checks the
// run owner's invariants on the events delivered: one run at a time, the
// phase consistent with the runs, and every prompt the harness accepted
// either run (recorded as a user message) or handed back (drafts), once.
func TestRunOwnerUnderConcurrentCallers(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Repeat: true, Text: "working on it, done", ChunkDelayMs: 2, ChunkSize: 4}})
	h := f.h
	ctx := context.Background()

	var mu sync.Mutex
	accepted := map[string]bool{}
	refused := map[string]bool{}
	note := func(text string, err error) {
		var busy *harness.BusyError
		if err != nil && !errors.As(err, &busy) {
			t.Errorf("%s: unexpected error %v", text, err)
		}
		mu.Lock()
		if err == nil {
			accepted[text] = true
		} else {
			refused[text] = true
		}
		mu.Unlock()
	}
	behaviours := []harness.Delivery{"", harness.DeliverySteer, harness.DeliveryFollowUp, harness.DeliveryInterrupt}
	const workers, ops = 6, 30
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range ops {
				text := fmt.Sprintf("p%d-%d", w, i)
				switch k := rng.IntN(10); {
				case k < 4:
					_, err := h.Prompt(ctx, text, harness.PromptOptions{StreamingBehavior: behaviours[rng.IntN(len(behaviours))]})
					note(text, err)
				case k == 4:
					note(text, h.Steer(ctx, text))
				case k == 5:
					note(text, h.FollowUp(ctx, text))
				case k == 6:
					h.Abort()
				case k == 7:
					mode := []string{"build", "fast"}[rng.IntN(2)]
					if _, err := h.SetMode(ctx, mode); err != nil {
						var busy *harness.BusyError
						if !errors.As(err, &busy) {
							t.Errorf("set mode: %v", err)
						}
					}
				case k == 8:
					if _, err := h.NewSession(ctx, ""); err != nil {
						var busy *harness.BusyError
						if !errors.As(err, &busy) {
							t.Errorf("new session: %v", err)
						}
					}
				default:
					_, err := h.Interrupt(ctx, text)
					note(text, err)
				}
				if rng.IntN(3) == 0 {
					time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.Wait(wctx); err != nil {
		t.Fatalf("the last run did not end: %v", err)
	}
	if h.IsRunning() || h.Phase() != harness.PhaseIdle {
		t.Fatalf("after the last run: running %v, phase %s", h.IsRunning(), h.Phase())
	}
	if s, fu := h.Queue(); len(s)+len(fu) > 0 {
		t.Fatalf("queue left after the last run: %v %v", s, fu)
	}

	evs := f.rec.all()
	checkRunEvents(t, evs)

	seen := map[string]int{}
	for _, ev := range evs {
		switch {
		case ev.Type == harness.EvMessageEnd && ev.Message != nil && ev.Message.Role == llm.RoleUser:
			seen[ev.Message.Text()]++
		case ev.Type == harness.EvDraftsReturned:
			for _, d := range ev.Drafts {
				seen[d]++
			}
		}
	}
	runs := 0
	for _, ev := range evs {
		if ev.Type == harness.EvAgentStart {
			runs++
		}
	}
	for text := range accepted {
		if seen[text] != 1 {
			t.Errorf("accepted prompt %q was run or returned %d times, want once", text, seen[text])
		}
	}
	for text := range refused {
		if seen[text] != 0 {
			t.Errorf("refused prompt %q was run or returned", text)
		}
	}
	if runs == 0 || len(accepted) == 0 {
		t.Fatalf("nothing ran: %d runs, %d prompts accepted", runs, len(accepted))
	}
	t.Logf("%d runs, %d prompts accepted, %d refused busy, %d events", runs, len(accepted), len(refused), len(evs))
}

// checkRunEvents checks the order of the run events: agent_start and
// agent_end alternate, a run starts in phase turn and ends in phase idle
// (the idle phase_change comes right before agent_end), run events come
// only inside a run, and seq rises by one per event.
func checkRunEvents(t *testing.T, evs []harness.Event) {
	t.Helper()
	inRun := false
	phase := harness.PhaseIdle
	var last uint64
	for i, ev := range evs {
		if ev.Seq != last+1 {
			t.Fatalf("event %d (%s): seq %d after %d", i, ev.Type, ev.Seq, last)
		}
		last = ev.Seq
		switch ev.Type {
		case harness.EvAgentStart:
			if inRun {
				t.Fatalf("event %d: agent_start inside a run", i)
			}
			if phase != harness.PhaseTurn {
				t.Fatalf("event %d: agent_start in phase %s", i, phase)
			}
			inRun = true
		case harness.EvAgentEnd:
			if !inRun {
				t.Fatalf("event %d: agent_end outside a run", i)
			}
			if phase != harness.PhaseIdle {
				t.Fatalf("event %d: agent_end in phase %s", i, phase)
			}
			inRun = false
		case harness.EvPhase:
			if inRun && ev.Phase == harness.PhaseIdle && (i+1 >= len(evs) || evs[i+1].Type != harness.EvAgentEnd) {
				t.Fatalf("event %d: phase idle inside a run, not followed by agent_end", i)
			}
			if !inRun && ev.Phase != harness.PhaseTurn && ev.Phase != harness.PhaseIdle {
				t.Fatalf("event %d: phase %s outside a run", i, ev.Phase)
			}
			phase = ev.Phase
		case harness.EvTurnStart, harness.EvTurnEnd, harness.EvMessageUpdate, harness.EvToolStart, harness.EvToolEnd:
			if !inRun {
				t.Fatalf("event %d: %s outside a run", i, ev.Type)
			}
		case harness.EvMessageStart, harness.EvMessageEnd:
			if !inRun && ev.Message != nil && ev.Message.Role != llm.RoleBashExecution {
				t.Fatalf("event %d: %s (%s) outside a run", i, ev.Type, ev.Message.Role)
			}
		}
	}
	if inRun {
		t.Fatalf("the last run has no agent_end")
	}
}
