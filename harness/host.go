package harness

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/pi-lsp/pi-lsp/tools"
)

// host is the back channel tools reach the harness through (tools.Host).
// The model never sees it.
type host struct {
	h       *Harness
	counter atomic.Int64
	// planApproved is set when the user approved a plan during this run; the
	// harness hands over to Build mode once the run is quiet.
	planApproved atomic.Pointer[tools.Plan]
	// goalDone is the evidence of goal_done, when the model called it in
	// this run.
	goalDone atomic.Pointer[string]
}

var _ tools.Host = (*host)(nil)

func (x *host) Ask(ctx context.Context, q tools.Question) (string, error) {
	ui := x.h.getUI()
	if ui == nil {
		return "", tools.ErrNoUI
	}
	if q.ID == "" {
		q.ID = fmt.Sprintf("q%d", x.counter.Add(1))
	}
	x.h.emit(Event{Type: EvQuestion, Question: &tools.Question{ID: q.ID, Question: q.Question, Options: q.Options, SelectionMode: q.SelectionMode}})
	ans, err := ui.AskQuestion(ctx, q)
	x.h.emit(Event{Type: EvQuestionDone, Question: &tools.Question{ID: q.ID, Question: q.Question}})
	if err != nil {
		return "", err
	}
	return ans, nil
}

func (x *host) SubmitPlan(ctx context.Context, p tools.Plan) (tools.PlanVerdict, error) {
	ui := x.h.getUI()
	if ui == nil {
		return tools.PlanVerdict{}, tools.ErrNoUI
	}
	if p.ID == "" {
		p.ID = fmt.Sprintf("p%d", x.counter.Add(1))
	}
	x.h.emit(Event{Type: EvPlan, Plan: &tools.Plan{ID: p.ID, Title: p.Title, Plan: p.Plan}})
	v, err := ui.ApprovePlan(ctx, p)
	decision := "rejected"
	if err == nil && v.Approved {
		decision = "approved"
		pc := p
		x.planApproved.Store(&pc)
	}
	x.h.emit(Event{Type: EvPlanDone, Plan: &tools.Plan{ID: p.ID, Title: p.Title}, Decision: decision})
	return v, err
}

func (x *host) Tasks() []tools.Task { return x.h.Tasks() }

func (x *host) SetTasks(ctx context.Context, ts []tools.Task) error { return x.h.setTasks(ctx, ts) }

// Tasks returns the live task list.
func (h *Harness) Tasks() []tools.Task {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]tools.Task{}, h.taskList...)
}

func (h *Harness) setTasks(ctx context.Context, ts []tools.Task) error {
	h.mu.Lock()
	h.taskList = append([]tools.Task{}, ts...)
	s := h.sessions.cur
	h.mu.Unlock()
	if s != nil {
		if _, err := s.AppendCustom(ctx, customTasks, map[string]any{"tasks": ts}); err != nil {
			return fmt.Errorf("persist tasks: %w", err)
		}
	}
	h.emitTasks()
	return nil
}

func (h *Harness) emitTasks() {
	h.emit(Event{Type: EvTasks, Tasks: h.Tasks()})
}
