package display

import (
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// WireGoal converts the session's goal (nil for none).
func WireGoal(g *harness.Goal) *protocol.Goal {
	if g == nil {
		return nil
	}
	return &protocol.Goal{Text: g.Text, Check: g.Check, Turns: g.Turns, MaxTurns: g.MaxTurns, MaxCostUSD: g.MaxCostUSD,
		CostUSD: g.CostUSD, Status: protocol.GoalStatus(g.Status), Reason: g.Reason}
}

// setGoal folds a goal_update: the state's goal is the one it carries.
func (r *Reducer) setGoal(g *harness.Goal) {
	w := WireGoal(g)
	old := r.st.Goal
	if (old == nil && w == nil) || (old != nil && w != nil && *old == *w) {
		return
	}
	r.st.Goal = w
	if w == nil {
		r.set(path("goal"), nil)
		return
	}
	r.set(path("goal"), *w)
}
