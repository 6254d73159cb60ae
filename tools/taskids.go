package tools

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSlugRunes bounds a derived task id.
const maxSlugRunes = 40

// taskInput is one task as task_write receives it.
type taskInput struct {
	ID         string `json:"id"`
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// assignTaskIDs builds the new list from in, keeping ids stable across
// rewrites. In order of preference a task gets: the id it names, when no
// earlier task in the list took it; the id of the one old task with the same
// content; the slug of its content; the slug with a -2, -3, … suffix.
func assignTaskIDs(old []Task, in []taskInput) ([]Task, error) {
	out := make([]Task, len(in))
	taken := map[string]bool{}
	for i, t := range in {
		content := strings.TrimSpace(t.Content)
		if content == "" {
			return nil, fmt.Errorf("tasks[%d]: content must not be empty", i)
		}
		st, err := normalizeStatus(t.Status)
		if err != nil {
			return nil, fmt.Errorf("tasks[%d]: %w", i, err)
		}
		active := strings.TrimSpace(t.ActiveForm)
		if active == "" {
			active = content
		}
		out[i] = Task{Content: content, Status: st, ActiveForm: active}
	}
	// 1. Explicit ids.
	for i, t := range in {
		if id := strings.TrimSpace(t.ID); id != "" && !taken[id] {
			out[i].ID = id
			taken[id] = true
		}
	}
	// 2. Same content as exactly one old task.
	byContent := map[string][]string{}
	for _, t := range old {
		byContent[t.Content] = append(byContent[t.Content], t.ID)
	}
	for i := range out {
		if out[i].ID != "" {
			continue
		}
		if ids := byContent[out[i].Content]; len(ids) == 1 && ids[0] != "" && !taken[ids[0]] {
			out[i].ID = ids[0]
			taken[ids[0]] = true
		}
	}
	// 3. Slug, then slug-N.
	for i := range out {
		if out[i].ID != "" {
			continue
		}
		base := slug(out[i].Content)
		id := base
		for n := 2; taken[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		out[i].ID = id
		taken[id] = true
	}
	return out, nil
}

// slug lower-cases s and joins its words (letters and digits) with "-",
// cutting at a word boundary after maxSlugRunes.
func slug(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return "task"
	}
	out := words[0]
	if n := []rune(out); len(n) > maxSlugRunes {
		return string(n[:maxSlugRunes])
	}
	for _, w := range words[1:] {
		if utf8.RuneCountInString(out)+1+utf8.RuneCountInString(w) > maxSlugRunes {
			break
		}
		out += "-" + w
	}
	return out
}

// normalizeStatus accepts the three statuses and a few common spellings.
func normalizeStatus(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "pending", "todo", "not_started":
		return TaskPending, nil
	case "in_progress", "in-progress", "in progress", "inprogress", "active", "doing":
		return TaskInProgress, nil
	case "completed", "complete", "done":
		return TaskCompleted, nil
	}
	return "", fmt.Errorf("status must be pending, in_progress or completed, got %q", s)
}
