package tools

import (
	"errors"
	"strings"
	"testing"
)

func TestAssignTaskIDs(t *testing.T) {
	old := []Task{
		{ID: "fix-bug", Content: "Fix bug", Status: TaskCompleted},
		{ID: "custom", Content: "Write docs"},
		{ID: "a", Content: "Dup"}, {ID: "b", Content: "Dup"},
	}
	tests := []struct {
		name string
		in   []taskInput
		want []string
	}{
		{"content keeps its id", []taskInput{{Content: "Write docs"}, {Content: "Fix bug"}}, []string{"custom", "fix-bug"}},
		{"new content gets a slug", []taskInput{{Content: "Add  Tests, now!"}}, []string{"add-tests-now"}},
		{"ambiguous old content is not reused", []taskInput{{Content: "Dup"}}, []string{"dup"}},
		{"slug collision gets a suffix", []taskInput{{Content: "Run it"}, {Content: "run-it"}, {Content: "RUN IT"}}, []string{"run-it", "run-it-2", "run-it-3"}},
		{"explicit id wins", []taskInput{{ID: "mine", Content: "Fix bug"}, {Content: "Fix bug"}}, []string{"mine", "fix-bug"}},
		{"explicit duplicate id falls through", []taskInput{{ID: "x", Content: "One"}, {ID: "x", Content: "Two"}}, []string{"x", "two"}},
		{"slug avoids taken ids", []taskInput{{Content: "Fix bug!"}, {Content: "Fix bug"}}, []string{"fix-bug-2", "fix-bug"}},
		{"non-latin content", []taskInput{{Content: "修复 错误"}, {Content: "!!!"}}, []string{"修复-错误", "task"}},
		{"long content", []taskInput{{Content: strings.Repeat("word ", 20)}}, []string{"word-word-word-word-word-word-word-word"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := assignTaskIDs(old, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("ids %v, want %v", ids, tt.want)
			}
		})
	}
}

// TestTaskIDsStableAcrossRewrites rewrites a list several times the way a
// model does (reordered, edited, extended) and checks ids survive.
func TestTaskIDsStableAcrossRewrites(t *testing.T) {
	f := newFixture(t)
	h := &fakeHost{}
	f.host = h
	write := func(items ...map[string]string) []Task {
		t.Helper()
		ok(t, f.run("task_write", map[string]any{"tasks": items}))
		return h.Tasks()
	}
	first := write(
		map[string]string{"content": "Read code", "status": "in_progress", "activeForm": "Reading code"},
		map[string]string{"content": "Fix bug", "status": "pending"},
		map[string]string{"content": "Fix bug", "status": "pending"})
	if first[0].ID != "read-code" || first[1].ID != "fix-bug" || first[2].ID != "fix-bug-2" || first[1].ActiveForm != "Fix bug" {
		t.Fatalf("first %+v", first)
	}
	second := write(
		map[string]string{"content": "Add tests", "status": "pending"},
		map[string]string{"content": "Read code", "status": "completed"},
		map[string]string{"content": "Fix bug", "status": "in_progress", "id": "fix-bug-2"},
		map[string]string{"content": "Fix bug", "status": "pending", "id": "fix-bug"})
	got := []string{second[0].ID, second[1].ID, second[2].ID, second[3].ID}
	if strings.Join(got, ",") != "add-tests,read-code,fix-bug-2,fix-bug" {
		t.Fatalf("second %v", got)
	}
	// task_update edits content without changing the id.
	ok(t, f.run("task_update", map[string]any{"id": "add-tests", "content": "Add unit tests"}))
	third := write(
		map[string]string{"content": "Add unit tests", "status": "pending"},
		map[string]string{"content": "Read code", "status": "completed"})
	if third[0].ID != "add-tests" || third[1].ID != "read-code" {
		t.Fatalf("third %+v", third)
	}
}

func TestTaskTools(t *testing.T) {
	f := newFixture(t)
	h := &fakeHost{}
	f.host = h
	r := f.run("task_write", map[string]any{"tasks": []map[string]string{
		{"content": "Plan", "status": "completed"},
		{"content": "Build", "status": "in_progress", "activeForm": "Building"},
		{"content": "Ship", "status": "pending"}}})
	if got := ok(t, r); got != "Tasks: [1/3 completed]\nCurrently: Building\n[x] plan: Plan\n[~] build: Build\n[ ] ship: Ship" {
		t.Fatalf("write text %q", got)
	}
	if d := details(t, r); len(d["tasks"].([]any)) != 3 {
		t.Fatalf("details %v", d)
	}

	// At most one in progress, whichever tool tries.
	fails(t, f.run("task_update", map[string]any{"id": "ship", "status": "in_progress"}),
		"Only one task can be in_progress at a time, but 2 are: build, ship.")
	fails(t, f.run("task_write", map[string]any{"tasks": []map[string]string{
		{"content": "A", "status": "in_progress"}, {"content": "B", "status": "in_progress"}}}), "Only one task can be in_progress")
	if h.Tasks()[2].Status != TaskPending {
		t.Fatal("a rejected change was stored")
	}

	fails(t, f.run("task_update", map[string]any{"id": "nope", "status": "completed"}), `Task "nope" not found. Known ids: plan, build, ship`)
	fails(t, f.run("task_update", map[string]any{"id": "ship", "status": "later"}), "status must be pending, in_progress or completed")
	fails(t, f.run("task_write", map[string]any{"tasks": []map[string]string{{"content": " ", "status": "pending"}}}), "tasks[0]: content must not be empty")

	check := ok(t, f.run("task_check", map[string]any{}))
	if !strings.Contains(check, "[1/3 completed]") || !strings.Contains(check, "- build (in_progress): Build\n- ship (pending): Ship") ||
		!strings.Contains(check, "All tasks completed: NO") {
		t.Fatalf("check %q", check)
	}

	ok(t, f.run("task_complete", map[string]any{"id": "build"}))
	ok(t, f.run("task_update", map[string]any{"id": "ship", "status": "in_progress"}))
	if got := ok(t, f.run("task_complete", map[string]any{"id": "ship"})); !strings.HasPrefix(got, "Completed task ship.\nTasks: [3/3 completed]") {
		t.Fatalf("complete %q", got)
	}
	if check := ok(t, f.run("task_check", nil)); !strings.Contains(check, "All tasks completed: YES") {
		t.Fatalf("check %q", check)
	}
	if h.sets != 4 {
		t.Fatalf("SetTasks called %d times, want 4", h.sets)
	}
	ok(t, f.run("task_write", map[string]any{"tasks": []any{}}))
	if got := ok(t, f.run("task_check", map[string]any{})); !strings.HasPrefix(got, "No tasks found.") {
		t.Fatalf("empty check %q", got)
	}
}

func TestTasksWithoutHost(t *testing.T) {
	f := newFixture(t)
	ok(t, f.run("task_write", map[string]any{"tasks": []map[string]string{{"content": "Only", "status": "pending"}}}))
	ok(t, f.run("task_update", map[string]any{"id": "only", "status": "in_progress"}))
	if got := ok(t, f.run("task_check", map[string]any{})); !strings.Contains(got, "- only (in_progress): Only") {
		t.Fatalf("check %q", got)
	}
	// A fresh tool set has its own list.
	other := newFixture(t)
	if got := ok(t, other.run("task_check", map[string]any{})); !strings.HasPrefix(got, "No tasks found.") {
		t.Fatalf("other %q", got)
	}
}

func TestTasksHostFailure(t *testing.T) {
	f := newFixture(t)
	f.host = &fakeHost{setErr: errors.New("disk full")}
	fails(t, f.run("task_write", map[string]any{"tasks": []map[string]string{{"content": "A", "status": "pending"}}}),
		"Failed to update the task list: disk full")
}
