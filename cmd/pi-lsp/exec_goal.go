package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/pi-lsp/pi-lsp/harness"
)

// goalFlags are exec's goal flags: `pi-lsp exec --goal "text" --check "cmd"
// [--max-turns N] [--max-cost USD]`.
type goalFlags struct {
	text, check string
	maxTurns    int
	maxCost     float64
}

func (g *goalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.text, "goal", "", "work toward this goal: runs go on until it is met (exit 0) or its budget is spent (exit 1)")
	fs.StringVar(&g.check, "check", "", "with --goal: the shell command that judges it (exit 0 = met); without it the model calls goal_done")
	fs.IntVar(&g.maxTurns, "max-turns", 0, fmt.Sprintf("with --goal: at most this many runs (default %d)", harness.DefaultGoalMaxTurns))
	fs.Float64Var(&g.maxCost, "max-cost", 0, "with --goal: stop once its runs cost this many USD")
}

// spec is the goal the flags ask for; isGoal is false without --goal.
func (g *goalFlags) spec(prompt, session string) (harness.GoalSpec, bool, error) {
	if g.text == "" {
		if g.check != "" || g.maxTurns != 0 || g.maxCost != 0 {
			return harness.GoalSpec{}, false, errors.New("--check, --max-turns and --max-cost need --goal")
		}
		return harness.GoalSpec{}, false, nil
	}
	switch {
	case prompt != "":
		return harness.GoalSpec{}, false, errors.New("--goal takes no prompt: the goal's text is the prompt")
	case session != "":
		return harness.GoalSpec{}, false, errors.New("--goal cannot be used with --session")
	case g.maxTurns < 0:
		return harness.GoalSpec{}, false, fmt.Errorf("--max-turns %d: want at least 1", g.maxTurns)
	case g.maxCost < 0:
		return harness.GoalSpec{}, false, fmt.Errorf("--max-cost %v: want more than 0", g.maxCost)
	}
	return harness.GoalSpec{Text: g.text, Check: g.check, MaxTurns: g.maxTurns, MaxCostUSD: g.maxCost}, true, nil
}

// execGoal sets the goal, waits for its runs and exits by its outcome: 0
// met, 1 exhausted, 2 on error (a bad goal, a failed run), 130 when
// interrupted.
func execGoal(ctx context.Context, h *harness.Harness, spec harness.GoalSpec, asJSON bool, stderr io.Writer) int {
	if _, err := h.SetGoal(ctx, spec); err != nil {
		fmt.Fprintf(stderr, "pi-lsp exec: %v\n", err)
		return 2
	}
	waitAbortingOnInterrupt(ctx, h)
	g := h.CurrentGoal()
	if g == nil {
		fmt.Fprintln(stderr, "pi-lsp exec: the goal is gone")
		return 2
	}
	if !asJSON {
		fmt.Fprintf(stderr, "goal %s after %d run(s): %s\nsession: %s\n", g.Status, g.Turns, g.Reason, h.SessionInfo().Path)
	}
	switch {
	case g.Status == harness.GoalMet:
		return 0
	case g.Status == harness.GoalExhausted:
		return 1
	case ctx.Err() != nil:
		return 130
	}
	return 2
}

// waitAbortingOnInterrupt waits until h is idle (its runs, a goal's runs
// included, are over), aborting it when ctx ends (Ctrl-C).
func waitAbortingOnInterrupt(ctx context.Context, h *harness.Harness) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			h.Abort()
		case <-done:
		}
	}()
	_ = h.Wait(context.Background())
	close(done)
}
