package harness

import (
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// The goal's part of the run owner. The goal lives under the runner's lock
// and its transitions are the runner's: a goal's next run is chosen in the
// transition that ends the run before it (finish → handOnLocked), so the
// goal's events follow its state changes like every other event.

// goalEventLocked is the event that shows r.goal as it is now.
func (r *runner) goalEventLocked() Event {
	if r.goal == nil {
		return Event{Type: EvGoal}
	}
	g := r.goal.Goal
	return Event{Type: EvGoal, Goal: &g}
}

// setGoal makes g the goal (an active one is replaced: returned, stopped)
// and starts its first run now when the harness is idle, else marks it due.
func (r *runner) setGoal(model llm.Model, g Goal, s sessionAt, cost float64) (Goal, *goalRun) {
	r.lock()
	var evs []Event
	var replaced *goalRun
	if old := r.goal; old != nil && old.Status == GoalActive {
		o := *old
		o.Status, o.Reason, o.due = GoalStopped, "replaced by a new goal", false
		if old.check != nil {
			old.check()
		}
		replaced = &o
	}
	r.goalSeq++
	gr := &goalRun{Goal: g, id: r.goalSeq, startCost: cost, session: s}
	r.goal = gr
	if r.holder == holdNone && !r.closed {
		evs = r.beginRunLocked(model, []llm.Message{r.h.goalMessage(goalPrompt(g))}, nil)
	} else {
		gr.due, gr.next = true, goalPrompt(g)
		evs = []Event{r.goalEventLocked()}
	}
	out := gr.Goal
	r.unlock(evs)
	return out, replaced
}

// stopGoal stops the active goal with reason. It returns the goal (nil for
// none) and, when it was active, the stopped goal to record.
func (r *runner) stopGoal(reason string) (*Goal, *goalRun) {
	r.lock()
	var evs []Event
	var ended *goalRun
	if r.goal != nil && r.goal.Status == GoalActive {
		evs, ended = r.endGoalLocked(GoalStopped, reason)
	}
	var out *Goal
	if r.goal != nil {
		g := r.goal.Goal
		out = &g
	}
	r.unlock(evs)
	return out, ended
}

// resetGoal shows g (a recorded goal, never active) or none: the session
// changed.
func (r *runner) resetGoal(g *Goal) {
	r.lock()
	if r.goal == nil && g == nil {
		r.unlock(nil) // nothing to show, nothing to say
		return
	}
	r.goal = nil
	if g != nil {
		r.goalSeq++
		r.goal = &goalRun{Goal: *g, id: r.goalSeq}
	}
	evs := []Event{r.goalEventLocked()}
	r.unlock(evs)
}

// runGoal returns the active goal when the current run is one of its runs.
func (r *runner) runGoal() (int, Goal, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.goal
	if g == nil || g.Status != GoalActive || r.runGoalID != g.id {
		return 0, Goal{}, false
	}
	return g.id, g.Goal, true
}

// goalRunStartsLocked counts a run that begins while the goal is active.
func (r *runner) goalRunStartsLocked() []Event {
	g := r.goal
	if g == nil || g.Status != GoalActive {
		r.runGoalID = 0
		return nil
	}
	g.Turns++
	g.due, g.next = false, ""
	r.runGoalID = g.id
	return []Event{r.goalEventLocked()}
}

// setGoalCheck registers (or, with nil, forgets) the cancel func of the
// check of goal id; false when that goal is no longer active.
func (r *runner) setGoalCheck(id int, cancel func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.goal
	if g == nil || g.id != id || g.Status != GoalActive {
		return false
	}
	g.check = cancel
	return true
}

// endGoalLocked ends the active goal with status and reason (a check that
// is running is killed); an exhausted goal also gets a notice that names
// it and says why.
func (r *runner) endGoalLocked(status GoalStatus, reason string) ([]Event, *goalRun) {
	g := r.goal
	if g.check != nil {
		g.check()
		g.check = nil
	}
	g.Status, g.Reason, g.due, g.next = status, reason, false, ""
	evs := []Event{r.goalEventLocked()}
	if status == GoalExhausted {
		evs = append(evs, Event{Type: EvNotice, Notice: fmt.Sprintf("Goal exhausted: %q — %s", g.Text, reason)})
	}
	ended := *g
	return evs, &ended
}

// goalAfterRunLocked settles the goal when one of its runs ended: met,
// exhausted, stopped, or due again with the prompt of its next run. cost
// is the session's cost now. It returns the events and the goal to record
// when it ended.
func (r *runner) goalAfterRunLocked(reason EndReason, v *goalVerdict, cost float64) ([]Event, *goalRun) {
	g := r.goal
	if g == nil || g.Status != GoalActive || r.runGoalID != g.id {
		return nil, nil // no goal, or set during this run: its first run is due
	}
	g.CostUSD = cost - g.startCost
	if reason == EndAborted || reason == EndClientGone {
		if len(r.waiters) > 0 && r.waiters[0].prompts != nil {
			// An interrupt: the user's message runs, and the goal goes on
			// after it.
			return []Event{r.goalEventLocked()}, nil
		}
		return r.endGoalLocked(GoalStopped, "the run was aborted")
	}
	if v != nil && v.id == g.id && v.met {
		return r.endGoalLocked(GoalMet, v.reason)
	}
	switch {
	case reason == "error" || reason == "blocked":
		return r.endGoalLocked(GoalStopped, "its run ended with an error")
	case g.Turns >= g.MaxTurns:
		return r.endGoalLocked(GoalExhausted, fmt.Sprintf("not met after %d of %d runs (maxTurns)", g.Turns, g.MaxTurns))
	case g.MaxCostUSD > 0 && g.CostUSD >= g.MaxCostUSD:
		return r.endGoalLocked(GoalExhausted, fmt.Sprintf("its runs cost $%.4f, reaching maxCostUsd $%.4f", g.CostUSD, g.MaxCostUSD))
	}
	var verdict goalVerdict
	if v != nil {
		verdict = *v
	}
	g.due, g.next = true, continuePrompt(g.Goal, verdict)
	return []Event{r.goalEventLocked()}, nil
}

// goalDueRunLocked starts the run the goal is due for, with the messages
// queued too late for the ending run before its prompt. ok is false when
// no goal run is due.
func (r *runner) goalDueRunLocked(evs []Event) ([]Event, bool) {
	g := r.goal
	if g == nil || g.Status != GoalActive || !g.due {
		return evs, false
	}
	prompts := append(append([]llm.Message{}, r.steering...), r.followUp...)
	if len(prompts) > 0 {
		evs = append(evs, Event{Type: EvQueueUpdate})
	}
	r.steering, r.followUp = nil, nil
	prompts = append(prompts, r.h.goalMessage(g.next))
	return append(evs, r.beginRunLocked(r.h.currentModel(llm.Model{}), prompts, r.chain)...), true
}
