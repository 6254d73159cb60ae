package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHost is a scripted Host.
type fakeHost struct {
	mu      sync.Mutex
	answer  string
	askErr  error
	verdict PlanVerdict
	planErr error
	block   bool // Ask and SubmitPlan wait for ctx
	tasks   []Task
	setErr  error

	asked []Question
	plans []Plan
	sets  int
}

func (h *fakeHost) Ask(ctx context.Context, q Question) (string, error) {
	h.mu.Lock()
	h.asked = append(h.asked, q)
	block := h.block
	h.mu.Unlock()
	if block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return h.answer, h.askErr
}

func (h *fakeHost) SubmitPlan(ctx context.Context, p Plan) (PlanVerdict, error) {
	h.mu.Lock()
	h.plans = append(h.plans, p)
	block := h.block
	h.mu.Unlock()
	if block {
		<-ctx.Done()
		return PlanVerdict{}, ctx.Err()
	}
	return h.verdict, h.planErr
}

func (h *fakeHost) Tasks() []Task {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Task(nil), h.tasks...)
}

func (h *fakeHost) SetTasks(_ context.Context, tasks []Task) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.setErr != nil {
		return h.setErr
	}
	h.tasks = append([]Task(nil), tasks...)
	h.sets++
	return nil
}

func TestAskUser(t *testing.T) {
	tests := []struct {
		name    string
		host    *fakeHost
		args    map[string]any
		want    string
		isError bool
	}{
		{"answered", &fakeHost{answer: "Postgres"}, map[string]any{"question": "Which DB?", "options": []string{"Postgres", "SQLite"}},
			"User answered: Postgres", false},
		{"no UI falls back", &fakeHost{askErr: ErrNoUI}, map[string]any{"question": "Which DB?", "options": []string{"Postgres", "SQLite"}},
			"[Question for user]: Which DB?\nOptions: Postgres, SQLite\n\nThe user cannot answer interactively", false},
		{"nil host falls back", nil, map[string]any{"question": "Go on?"}, "[Question for user]: Go on?\n\nThe user cannot answer", false},
		{"host failure", &fakeHost{askErr: errors.New("wire broke")}, map[string]any{"question": "Q?"}, "ask_user failed: wire broke", true},
		{"missing question", &fakeHost{}, map[string]any{"question": " "}, "question is required", true},
		{"bad selection mode", &fakeHost{}, map[string]any{"question": "Q?", "options": []string{"a"}, "selectionMode": "all"}, `selectionMode must be "single" or "multi"`, true},
		{"selection mode without options", &fakeHost{}, map[string]any{"question": "Q?", "selectionMode": "multi"}, "selectionMode needs options", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.host != nil {
				f.host = tt.host
			}
			r := f.run("ask_user", tt.args)
			if r.IsError != tt.isError || !strings.HasPrefix(strings.TrimPrefix(r.Text(), "ask_user: "), tt.want) {
				t.Fatalf("got isError=%v %q, want prefix %q", r.IsError, r.Text(), tt.want)
			}
		})
	}
}

func TestAskUserQuestionSent(t *testing.T) {
	f := newFixture(t)
	h := &fakeHost{answer: "a, b"}
	f.host = h
	ok(t, f.run("ask_user", map[string]any{"question": "Pick", "options": []string{"a", "b", "c"}, "selectionMode": "multi"}))
	q := h.asked[0]
	if q.ID != "call_1" || q.Question != "Pick" || len(q.Options) != 3 || q.SelectionMode != "multi" {
		t.Fatalf("question %+v", q)
	}
	// Options without a mode default to single.
	ok(t, f.run("ask_user", map[string]any{"question": "Pick", "options": []string{"a"}}))
	if h.asked[1].SelectionMode != "single" {
		t.Fatalf("mode %q", h.asked[1].SelectionMode)
	}
}

func TestAskUserAbortWhileWaiting(t *testing.T) {
	for _, tool := range []string{"ask_user", "submit_plan"} {
		t.Run(tool, func(t *testing.T) {
			f := newFixture(t)
			h := &fakeHost{block: true}
			f.host = h
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for {
					h.mu.Lock()
					n := len(h.asked) + len(h.plans)
					h.mu.Unlock()
					if n > 0 {
						cancel()
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()
			r := f.runCtx(ctx, tool, map[string]any{"question": "Q?", "title": "T", "plan": "P"})
			if !r.IsError || r.Text() != "aborted" {
				t.Fatalf("got %v %q", r.IsError, r.Text())
			}
		})
	}
}

func TestSubmitPlan(t *testing.T) {
	tests := []struct {
		name    string
		host    *fakeHost
		args    map[string]any
		want    string
		isError bool
	}{
		{"approved", &fakeHost{verdict: PlanVerdict{Approved: true}}, map[string]any{"title": "T", "plan": "1. do"},
			"Plan approved by the user. Proceed with the implementation", false},
		{"rejected with feedback", &fakeHost{verdict: PlanVerdict{Feedback: "add tests"}}, map[string]any{"title": "T", "plan": "1. do"},
			"Plan was not approved. The user wants revisions.\n\nUser feedback: add tests\n\nPlease revise the plan", false},
		{"rejected without feedback", &fakeHost{}, map[string]any{"title": "T", "plan": "1. do"},
			"Plan was not approved. The user wants revisions.\n\nPlease revise", false},
		{"no UI", &fakeHost{planErr: ErrNoUI}, map[string]any{"title": "T", "plan": "1. do"},
			"[Plan submitted for review]\n\nTitle: T\n\n1. do\n\nNo interactive approval is available", false},
		{"nil host, default title", nil, map[string]any{"plan": "1. do"},
			"[Plan submitted for review]\n\nTitle: Implementation Plan\n\n1. do", false},
		{"host failure", &fakeHost{planErr: errors.New("boom")}, map[string]any{"title": "T", "plan": "x"}, "Failed to submit plan: boom", true},
		{"no plan", &fakeHost{}, map[string]any{"title": "T"}, "plan is required", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.host != nil {
				f.host = tt.host
			}
			r := f.run("submit_plan", tt.args)
			if r.IsError != tt.isError || !strings.HasPrefix(strings.TrimPrefix(r.Text(), "submit_plan: "), tt.want) {
				t.Fatalf("got isError=%v %q, want prefix %q", r.IsError, r.Text(), tt.want)
			}
			if tt.host != nil && len(tt.host.plans) == 1 {
				if p := tt.host.plans[0]; p.ID != "call_1" || p.Plan != tt.args["plan"] {
					t.Fatalf("plan sent %+v", p)
				}
			}
		})
	}
}
