package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func setGoal(t *testing.T, f *fixture, spec harness.GoalSpec) harness.Goal {
	t.Helper()
	g, err := f.h.SetGoal(context.Background(), spec)
	if err != nil {
		t.Fatalf("SetGoal: %v", err)
	}
	return g
}

// TestGoalHangingCheckIsNotMet: a check that hangs is killed at its
// timeout and counts as not met; the goal's next run starts in the
// transition that ends the run before it (goal_update after agent_end,
// before the next agent_start), and it ends exhausted with a notice.
func TestGoalHangingCheckIsNotMet(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Text: "trying", Repeat: true}}, func(c *harness.Config) { c.GoalCheckTimeout = 300 * time.Millisecond })
	g := setGoal(t, f, harness.GoalSpec{Text: "finish", Check: "echo waiting; sleep 30", MaxTurns: 2})
	if g.Turns != 1 || g.Status != harness.GoalActive {
		t.Fatalf("set: %+v", g)
	}
	f.wait(t)
	got := f.h.CurrentGoal()
	if got == nil || got.Status != harness.GoalExhausted || got.Turns != 2 {
		t.Fatalf("goal: %+v", got)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "Continue working toward the goal: finish") || !strings.Contains(string(reqs[1]), "waiting") {
		t.Fatalf("%d requests; second:\n%.2000s", len(reqs), reqs[len(reqs)-1])
	}
	types := f.rec.types(harness.EvMessageUpdate, harness.EvUsage, harness.EvPhase, harness.EvQueueUpdate, harness.EvTasks, harness.EvSession, harness.EvModel,
		harness.EvThinking, harness.EvMode, harness.EvMessageStart, harness.EvMessageEnd, harness.EvTurnStart, harness.EvTurnEnd)
	want := []string{"agent_start", "goal_update", "agent_end", "goal_update", "agent_start", "goal_update", "agent_end", "goal_update", "notice"}
	if !slices.Equal(types, want) {
		t.Fatalf("events:\n got %v\nwant %v", types, want)
	}
}

// TestGoalCostExhausts: a goal whose runs' cost reaches maxCostUsd ends
// exhausted before its turns run out.
func TestGoalCostExhausts(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Text: "expensive", Repeat: true, Usage: &llmtest.Usage{Prompt: 50000, Completion: 1000}}}, func(c *harness.Config) {
		m := c.Models.(fixedModels).m
		m.Cost = llm.Cost{Input: 10, Output: 1} // $0.501 a run
		c.Models = fixedModels{m}
	})
	setGoal(t, f, harness.GoalSpec{Text: "spend", Check: "false", MaxTurns: 10, MaxCostUSD: 1})
	f.wait(t)
	g := f.h.CurrentGoal()
	if g == nil || g.Status != harness.GoalExhausted || g.Turns != 2 || !strings.Contains(g.Reason, "maxCostUsd") || g.CostUSD < 1 {
		t.Fatalf("goal: %+v", g)
	}
}

// TestGoalReplacedAndCleared: a goal set during another's run replaces it
// (the old one stops) and its own first run follows; ClearGoal stops it
// and no further run starts.
func TestGoalReplacedAndCleared(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Match: "Goal: first", ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"sleep 0.5"}`}}},
		{Match: "Goal: first", Text: "first run over"},
		{Match: "Goal: second", ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "bash", Arguments: `{"command":"sleep 0.5"}`}}},
		{Match: "Goal: second", Text: "second run over"},
	}, func(c *harness.Config) { c.Yolo = true })
	setGoal(t, f, harness.GoalSpec{Text: "first", Check: "false"})
	waitFor(t, "the first run's tool", func() bool { return len(f.srv.Requests()) >= 1 })
	g := setGoal(t, f, harness.GoalSpec{Text: "second", Check: "false"})
	if g.Turns != 0 || g.Status != harness.GoalActive {
		t.Fatalf("second goal while busy: %+v", g)
	}
	waitFor(t, "the second goal's run", func() bool { return len(f.srv.Requests()) >= 3 })
	if c := f.h.ClearGoal(context.Background()); c == nil || c.Status != harness.GoalStopped || c.Text != "second" || c.Turns != 1 {
		t.Fatalf("cleared: %+v", c)
	}
	f.wait(t)
	if n := len(f.srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
}

func TestGoalSpecRefused(t *testing.T) {
	f := newFixture(t, nil)
	for _, s := range []harness.GoalSpec{{Text: ""}, {Text: "x", MaxTurns: -1}, {Text: "x", MaxTurns: 1001}, {Text: "x", MaxCostUSD: -1}, {Text: "x", MaxCostUSD: 1e6}} {
		if _, err := f.h.SetGoal(context.Background(), s); !errors.Is(err, harness.ErrInvalid) {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if f.h.CurrentGoal() != nil {
		t.Fatal("a refused goal was set")
	}
}

// TestGoalClearKillsItsCheck: goal/clear while the check runs kills the
// check (the run ends at once, not at the check's timeout) and no further
// run starts.
func TestGoalClearKillsItsCheck(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Text: "trying", Repeat: true}})
	setGoal(t, f, harness.GoalSpec{Text: "wait", Check: "touch started; sleep 60"})
	waitFor(t, "the check", func() bool { _, err := os.Stat(filepath.Join(f.dir, "started")); return err == nil })
	g := f.h.ClearGoal(context.Background())
	if g == nil || g.Status != harness.GoalStopped {
		t.Fatalf("cleared: %+v", g)
	}
	f.wait(t) // 15 s: the check was killed
	if n := len(f.srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}
