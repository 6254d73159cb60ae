package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

const taskItemSchema = `{"type":"object","properties":{` +
	`"content":{"type":"string","description":"Task in imperative form (e.g. 'Fix authentication bug')"},` +
	`"status":{"type":"string","enum":["pending","in_progress","completed"],"description":"Current status"},` +
	`"activeForm":{"type":"string","description":"Present continuous form shown while the task runs (e.g. 'Fixing authentication bug')"},` +
	`"id":{"type":"string","description":"Id of an existing task to keep (optional; ids are assigned and kept stable automatically)"}},` +
	`"required":["content","status"]}`

const taskWriteSchema = `{"type":"object","properties":{"tasks":{"type":"array","description":"The complete updated task list","items":` + taskItemSchema + `}},"required":["tasks"]}`

const taskUpdateSchema = `{"type":"object","properties":{` +
	`"id":{"type":"string","description":"Id of the task to change"},` +
	`"status":{"type":"string","enum":["pending","in_progress","completed"],"description":"New status"},` +
	`"content":{"type":"string","description":"New description"},` +
	`"activeForm":{"type":"string","description":"New present continuous form"}},` +
	`"required":["id"]}`

const taskCompleteSchema = `{"type":"object","properties":{"id":{"type":"string","description":"Id of the task that is done"}},"required":["id"]}`

const taskCheckSchema = `{"type":"object","properties":{}}`

// taskStore serialises task changes of one tool set and holds the list when
// there is no Host (headless runs), so the tools work without one.
type taskStore struct {
	mu    sync.Mutex
	tasks []Task
}

func (s *taskStore) current(x Exec) []Task {
	if x.Host != nil {
		return append([]Task(nil), x.Host.Tasks()...)
	}
	return append([]Task(nil), s.tasks...)
}

func (s *taskStore) replace(ctx context.Context, x Exec, tasks []Task) error {
	if x.Host != nil {
		return x.Host.SetTasks(ctx, tasks)
	}
	s.tasks = append([]Task(nil), tasks...)
	return nil
}

// mutate runs change on the current list and stores the result; the Result
// shows the new list.
func (s *taskStore) mutate(ctx context.Context, x Exec, change func([]Task) ([]Task, string, error)) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, note, err := change(s.current(x))
	if err != nil {
		return errorResult(err.Error())
	}
	if err := checkInProgress(next); err != nil {
		return errorResult(err.Error())
	}
	if err := s.replace(ctx, x, next); err != nil {
		if ctx.Err() != nil {
			return errorResult("aborted")
		}
		return errorResult(fmt.Sprintf("Failed to update the task list: %v", err))
	}
	text := summarizeTasks(next)
	if note != "" {
		text = note + "\n" + text
	}
	return withDetails(textResult(text), map[string]any{"tasks": nonNilTasks(next)})
}

func taskWriteTool(s *taskStore) Tool {
	return newTool("task_write",
		`Create or replace the task list for the current work. Pass the FULL list each time (it replaces the previous one). Each task has content (imperative), status (pending|in_progress|completed) and activeForm (present continuous). Mark a task in_progress BEFORE starting it (only ONE at a time) and completed IMMEDIATELY after finishing it. Use it for multi-step work (3+ distinct steps). Ids stay stable across rewrites.`,
		CategoryOther, taskWriteSchema,
		func(ctx context.Context, call Call, x Exec) Result {
			var a struct {
				Tasks []taskInput `json:"tasks"`
			}
			if err := decodeArgs(call.Args, &a); err != nil {
				return invalidArgs("task_write", err)
			}
			return s.mutate(ctx, x, func(old []Task) ([]Task, string, error) {
				next, err := assignTaskIDs(old, a.Tasks)
				return next, "", err
			})
		})
}

func taskUpdateTool(s *taskStore) Tool {
	return newTool("task_update",
		"Change one task by id: its status, content or activeForm. At most one task may be in_progress.",
		CategoryOther, taskUpdateSchema,
		func(ctx context.Context, call Call, x Exec) Result {
			var a struct {
				ID         string  `json:"id"`
				Status     *string `json:"status"`
				Content    *string `json:"content"`
				ActiveForm *string `json:"activeForm"`
			}
			if err := decodeArgs(call.Args, &a); err != nil {
				return invalidArgs("task_update", err)
			}
			return s.mutate(ctx, x, func(tasks []Task) ([]Task, string, error) {
				i, err := findTask(tasks, a.ID)
				if err != nil {
					return nil, "", err
				}
				t := &tasks[i]
				if a.Status != nil {
					st, err := normalizeStatus(*a.Status)
					if err != nil {
						return nil, "", err
					}
					t.Status = st
				}
				if a.Content != nil {
					if strings.TrimSpace(*a.Content) == "" {
						return nil, "", fmt.Errorf("task_update: content must not be empty")
					}
					t.Content = strings.TrimSpace(*a.Content)
				}
				if a.ActiveForm != nil {
					t.ActiveForm = strings.TrimSpace(*a.ActiveForm)
				}
				if t.ActiveForm == "" {
					t.ActiveForm = t.Content
				}
				return tasks, fmt.Sprintf("Updated task %s.", t.ID), nil
			})
		})
}

func taskCompleteTool(s *taskStore) Tool {
	return newTool("task_complete",
		"Mark one task completed by id, immediately after finishing it.",
		CategoryOther, taskCompleteSchema,
		func(ctx context.Context, call Call, x Exec) Result {
			var a struct {
				ID string `json:"id"`
			}
			if err := decodeArgs(call.Args, &a); err != nil {
				return invalidArgs("task_complete", err)
			}
			return s.mutate(ctx, x, func(tasks []Task) ([]Task, string, error) {
				i, err := findTask(tasks, a.ID)
				if err != nil {
					return nil, "", err
				}
				tasks[i].Status = TaskCompleted
				return tasks, fmt.Sprintf("Completed task %s.", tasks[i].ID), nil
			})
		})
}

func taskCheckTool(s *taskStore) Tool {
	return newTool("task_check",
		"Check the task list before ending your work: reports how many tasks are done and lists the ones that are not.",
		CategoryOther, taskCheckSchema,
		func(_ context.Context, _ Call, x Exec) Result {
			s.mu.Lock()
			tasks := s.current(x)
			s.mu.Unlock()
			return withDetails(textResult(checkReport(tasks)), map[string]any{"tasks": nonNilTasks(tasks)})
		})
}

func findTask(tasks []Task, id string) (int, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return -1, fmt.Errorf("a task id is required")
	}
	for i, t := range tasks {
		if t.ID == id {
			return i, nil
		}
	}
	if len(tasks) == 0 {
		return -1, failf("Task %q not found: the task list is empty. Create it with task_write.", id)
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return -1, failf("Task %q not found. Known ids: %s", id, strings.Join(ids, ", "))
}

// checkInProgress enforces at most one in_progress task.
func checkInProgress(tasks []Task) error {
	var active []string
	for _, t := range tasks {
		if t.Status == TaskInProgress {
			active = append(active, t.ID)
		}
	}
	if len(active) > 1 {
		return failf("Only one task can be in_progress at a time, but %d are: %s. Mark the others pending or completed.", len(active), strings.Join(active, ", "))
	}
	return nil
}

func summarizeTasks(tasks []Task) string {
	if len(tasks) == 0 {
		return "Task list cleared."
	}
	done := 0
	var current string
	for _, t := range tasks {
		switch t.Status {
		case TaskCompleted:
			done++
		case TaskInProgress:
			current = t.ActiveForm
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tasks: [%d/%d completed]", done, len(tasks))
	if current != "" {
		b.WriteString("\nCurrently: " + current)
	}
	for _, t := range tasks {
		fmt.Fprintf(&b, "\n%s %s: %s", statusMark(t.Status), t.ID, t.Content)
	}
	return b.String()
}

func statusMark(s string) string {
	switch s {
	case TaskCompleted:
		return "[x]"
	case TaskInProgress:
		return "[~]"
	}
	return "[ ]"
}

func checkReport(tasks []Task) string {
	if len(tasks) == 0 {
		return "No tasks found. Consider using task_write to create a task list for complex work."
	}
	var done, active, pending []Task
	for _, t := range tasks {
		switch t.Status {
		case TaskCompleted:
			done = append(done, t)
		case TaskInProgress:
			active = append(active, t)
		default:
			pending = append(pending, t)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Task status: [%d/%d completed]\n- Completed: %d\n- In progress: %d\n- Pending: %d\n",
		len(done), len(tasks), len(done), len(active), len(pending))
	if len(active)+len(pending) == 0 {
		b.WriteString("\nAll tasks completed: YES")
		return b.String()
	}
	b.WriteString("\nAll tasks completed: NO\n\nIncomplete tasks:")
	for _, t := range append(active, pending...) {
		fmt.Fprintf(&b, "\n- %s (%s): %s", t.ID, t.Status, t.Content)
	}
	b.WriteString("\n\nContinue working on these tasks before ending.")
	return b.String()
}

func nonNilTasks(t []Task) []Task {
	if t == nil {
		return []Task{}
	}
	return t
}
