package tools

import (
	"context"
	"errors"
)

// ErrNoUI is returned by Host methods when the client cannot answer (no
// capability, headless run); the tool then uses its plain-text fallback.
var ErrNoUI = errors.New("tools: no interactive UI")

// Question is what ask_user asks the user.
type Question struct {
	ID            string   `json:"id"`
	Question      string   `json:"question"`
	Options       []string `json:"options,omitempty"`
	SelectionMode string   `json:"selectionMode,omitempty"` // "single" | "multi"
}

// Plan is what submit_plan submits for approval.
type Plan struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Plan  string `json:"plan"`
}

// PlanVerdict is the user's answer to a Plan.
type PlanVerdict struct {
	Approved bool   `json:"approved"`
	Feedback string `json:"feedback,omitempty"`
}

// Task statuses.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
)

// Task is one entry of the live task list.
type Task struct {
	ID         string `json:"id"`
	Content    string `json:"content"`
	Status     string `json:"status"` // pending | in_progress | completed
	ActiveForm string `json:"activeForm"`
}

// Host is the back channel the harness implements for tools; the model never
// sees it. Blocking methods observe ctx (the run's abort signal).
type Host interface {
	// Ask shows q to the user and waits for the answer.
	Ask(ctx context.Context, q Question) (answer string, err error)
	// SubmitPlan shows p to the user and waits for the verdict.
	SubmitPlan(ctx context.Context, p Plan) (PlanVerdict, error)
	// Tasks returns the current task list.
	Tasks() []Task
	// SetTasks replaces the task list (and emits the change).
	SetTasks(ctx context.Context, tasks []Task) error
}
