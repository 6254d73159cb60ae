package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// GoalStatus is where a goal stands.
type GoalStatus string

// Goal statuses.
const (
	GoalActive    GoalStatus = "active"    // runs are started toward it
	GoalMet       GoalStatus = "met"       // the check passed (or the model called goal_done)
	GoalExhausted GoalStatus = "exhausted" // maxTurns runs, or the cost reached maxCostUsd
	GoalStopped   GoalStatus = "stopped"   // goal/clear, agent/abort, a failed run, a newer goal
)

// Goal limits.
const (
	DefaultGoalMaxTurns = 20
	MaxGoalTurns        = 1000   // more is refused as absurd
	MaxGoalCostUSD      = 10000. // more is refused as absurd
	maxGoalText         = 16 << 10
	// DefaultGoalCheckTimeout bounds one run of a goal's check command.
	DefaultGoalCheckTimeout = 120 * time.Second
	// goalCheckTail is how much of the check's output the next run's
	// prompt carries.
	goalCheckTail = 2 << 10
)

const customGoal = "pi-lsp/goal"

// Goal is the session's goal as the wire shows it.
type Goal struct {
	Text       string     `json:"text"`
	Check      string     `json:"check"`
	Turns      int        `json:"turns"` // runs started toward it, the first included
	MaxTurns   int        `json:"maxTurns"`
	MaxCostUSD float64    `json:"maxCostUsd,omitempty"`
	CostUSD    float64    `json:"costUsd"` // what its runs cost so far
	Status     GoalStatus `json:"status"`
	Reason     string     `json:"reason,omitempty"` // why it ended
}

// GoalSpec is what goal/set asks for. MaxTurns 0 means the default.
type GoalSpec struct {
	Text       string
	Check      string
	MaxTurns   int
	MaxCostUSD float64 // 0 = no cost limit
}

// validate refuses empty text and negative or absurd budgets (ErrInvalid).
func (s *GoalSpec) validate() error {
	s.Text, s.Check = strings.TrimSpace(s.Text), strings.TrimSpace(s.Check)
	switch {
	case s.Text == "":
		return fmt.Errorf("%w: goal text is required", ErrInvalid)
	case len(s.Text) > maxGoalText:
		return fmt.Errorf("%w: goal text is longer than %d bytes", ErrInvalid, maxGoalText)
	case s.MaxTurns < 0 || s.MaxTurns > MaxGoalTurns:
		return fmt.Errorf("%w: maxTurns %d (want 1 to %d)", ErrInvalid, s.MaxTurns, MaxGoalTurns)
	case math.IsNaN(s.MaxCostUSD) || s.MaxCostUSD < 0 || s.MaxCostUSD > MaxGoalCostUSD:
		return fmt.Errorf("%w: maxCostUsd %v (want more than 0, at most %v)", ErrInvalid, s.MaxCostUSD, MaxGoalCostUSD)
	}
	if s.MaxTurns == 0 {
		s.MaxTurns = DefaultGoalMaxTurns
	}
	return nil
}

// goalRun is the runner's goal: the wire view and what drives it. The run
// owner holds it under its lock.
type goalRun struct {
	Goal
	id        int       // generation: a verdict for an older goal is ignored
	startCost float64   // the session's cost when it was set
	due       bool      // it wants a run (its first, or the next one)
	next      string    // the prompt of that run
	check     func()    // cancels its check while one runs
	session   sessionAt // where its entries go
}

// sessionAt appends custom entries to one session (the one the goal was
// set in, even if the current one changed meanwhile).
type sessionAt interface {
	AppendCustom(ctx context.Context, customType string, data any) (string, error)
}

// goalVerdict is how a goal run's end was judged (run, before finish).
type goalVerdict struct {
	id     int
	met    bool
	reason string // why met, or why not
	output string // the tail of the check's output
}

// SetGoal sets the session's goal, replacing an active one, and starts its
// first run at once when the harness is idle (else when the current run or
// operation ends). Negative or absurd budgets are ErrInvalid.
func (h *Harness) SetGoal(ctx context.Context, spec GoalSpec) (Goal, error) {
	if err := spec.validate(); err != nil {
		return Goal{}, err
	}
	if h.owner.isClosed() {
		return Goal{}, ErrClosed
	}
	model, err := h.Model(ctx)
	if err != nil {
		return Goal{}, err
	}
	s, err := h.ensureSession(ctx)
	if err != nil {
		return Goal{}, err
	}
	g := Goal{Text: spec.Text, Check: spec.Check, MaxTurns: spec.MaxTurns, MaxCostUSD: spec.MaxCostUSD, Status: GoalActive}
	h.recordGoal(ctx, s, "start", g)
	set, replaced := h.owner.setGoal(model, g, s, h.sessionCost())
	if replaced != nil {
		h.recordGoal(ctx, replaced.session, "end", replaced.Goal)
	}
	return set, nil
}

// ClearGoal stops the active goal: no further run starts for it (the run
// going on, if any, goes on). It returns the goal (nil when none was set).
func (h *Harness) ClearGoal(ctx context.Context) *Goal {
	g, ended := h.owner.stopGoal("cleared by the user")
	if ended != nil {
		h.recordGoal(ctx, ended.session, "end", ended.Goal)
	}
	return g
}

// CurrentGoal returns the session's goal (the last one, whatever its
// status), or nil.
func (h *Harness) CurrentGoal() *Goal {
	r := h.owner
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.goal == nil {
		return nil
	}
	g := r.goal.Goal
	return &g
}

func (h *Harness) goalActive() bool {
	g := h.CurrentGoal()
	return g != nil && g.Status == GoalActive
}

func (h *Harness) sessionCost() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cumulative.Cost.Total
}

func (h *Harness) recordGoal(ctx context.Context, s sessionAt, event string, g Goal) {
	if s == nil {
		return
	}
	if _, err := s.AppendCustom(context.WithoutCancel(ctx), customGoal, map[string]any{"event": event, "goal": g}); err != nil {
		h.log.Warn("record goal", "err", err)
	}
}

// goalPrompt is the first run's prompt.
func goalPrompt(g Goal) string {
	var b strings.Builder
	b.WriteString("Goal: " + g.Text + "\n\n")
	if g.Check != "" {
		fmt.Fprintf(&b, "Work toward this goal. After each run the harness runs the check `%s` in the workspace; the goal is met when it exits 0, and until then you are asked to continue.", g.Check)
	} else {
		b.WriteString("Work toward this goal. When it is really met, call goal_done with the evidence; until then you are asked to continue.")
	}
	return b.String()
}

// continuePrompt is a later run's prompt: the goal and what the check said.
func continuePrompt(g Goal, v goalVerdict) string {
	p := "Continue working toward the goal: " + g.Text
	if v.reason != "" {
		p += "\n\n" + v.reason
	}
	if out := strings.TrimSpace(v.output); out != "" {
		p += "\nIts output ends with:\n```\n" + out + "\n```"
	}
	return p
}

// judgeGoal judges the run that is ending, when it is a run of the active
// goal: the check command (under the sandbox, in the workspace, bounded by
// its timeout) or the model's goal_done. ok is false when there is nothing
// to judge.
func (h *Harness) judgeGoal(ctx context.Context, x *host) (v goalVerdict, ok bool) {
	id, g, ok := h.owner.runGoal()
	if !ok {
		return goalVerdict{}, false
	}
	v.id = id
	if g.Check == "" {
		if ev := x.goalDone.Load(); ev != nil {
			v.met, v.reason = true, "goal_done: "+*ev
		} else {
			v.reason = "goal_done was not called."
		}
		return v, true
	}
	timeout := h.cfg.GoalCheckTimeout
	if timeout <= 0 {
		timeout = DefaultGoalCheckTimeout
	}
	var out tailBuffer
	out.max = goalCheckTail
	// goal/clear while the check runs kills it: its answer no longer matters.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !h.owner.setGoalCheck(id, cancel) {
		return goalVerdict{}, false
	}
	res, err := h.commandEnv().Exec(cctx, execRequest(g.Check, timeout), out.write)
	h.owner.setGoalCheck(id, nil)
	switch {
	case ctx.Err() != nil:
		return goalVerdict{}, false // aborted: finish says so
	case cctx.Err() != nil:
		return goalVerdict{}, false // the goal was stopped meanwhile
	case err == nil && res.ExitCode == 0:
		v.met, v.reason = true, "check passed: "+g.Check
	case err != nil && res.ExitCode == -1:
		v.reason = fmt.Sprintf("The check `%s` did not pass: %v.", g.Check, err)
	default:
		v.reason = fmt.Sprintf("The check `%s` did not pass (exit code %d).", g.Check, res.ExitCode)
	}
	v.output = out.String()
	return v, true
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) write(p []byte) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

func (t *tailBuffer) String() string { return strings.ToValidUTF8(string(t.buf), "") }

// GoalDone is goal_done's back channel (tools.GoalHost).
func (x *host) GoalDone(_ context.Context, evidence string) error {
	if !x.h.goalActive() {
		return fmt.Errorf("no goal is active")
	}
	x.goalDone.Store(&evidence)
	return nil
}

var _ tools.GoalHost = (*host)(nil)

// goalTools are the tools a goal adds: goal_done while one is active.
func (h *Harness) goalTools() []tools.Tool {
	if !h.goalActive() {
		return nil
	}
	return []tools.Tool{tools.GoalDone()}
}

// restoreGoal shows the goal recorded in the current session (never
// resumed: an active one is shown stopped).
func (h *Harness) restoreGoal() {
	var g *Goal
	if s := h.currentSession(); s != nil {
		if raw, ok := s.LatestCustom(customGoal); ok {
			var rec struct {
				Goal Goal `json:"goal"`
			}
			if json.Unmarshal(raw, &rec) == nil && rec.Goal.Text != "" {
				g = &rec.Goal
				if g.Status == GoalActive {
					g.Status, g.Reason = GoalStopped, "not resumed: the session was reopened (goal/set continues it)"
				}
			}
		}
	}
	h.owner.resetGoal(g)
}

// goalMessage is a user-role message of a goal run.
func (h *Harness) goalMessage(text string) llm.Message { return llm.UserText(text, h.now()) }

func execRequest(command string, timeout time.Duration) env.ExecRequest {
	return env.ExecRequest{Command: command, Timeout: timeout}
}
