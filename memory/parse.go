package memory

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"strings"
)

// Output is what one observer call produced.
type Output struct {
	Observations string `json:"observations"`
	CurrentTask  string `json:"currentTask,omitempty"`
	Suggested    string `json:"suggested,omitempty"`
}

// ErrBadOutput says an observer or reflector answer cannot be used.
var ErrBadOutput = errors.New("memory: unusable model output")

// section returns the text between <tag> and </tag> (a missing closing tag
// runs to the next section or the end), and whether the tag was there.
func section(s, tag string) (string, bool) {
	open := "<" + tag + ">"
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	if j := strings.Index(rest, "</"+tag+">"); j >= 0 {
		return strings.TrimSpace(rest[:j]), true
	}
	for _, next := range []string{"<observations>", "<current-task>", "<suggested-response>"} {
		if j := strings.Index(rest, next); j >= 0 {
			rest = rest[:j]
		}
	}
	return strings.TrimSpace(rest), true
}

// ParseObserver reads an observer answer. The observations are required:
// inside <observations>, or, from a model that left the tags out, the
// answer's observation lines ("Date:" headers and "* " items). Degenerate
// (repetitive) output is rejected.
func ParseObserver(text string) (Output, error) {
	var out Output
	obs, ok := section(text, "observations")
	if !ok {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "Date:") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "- ") {
				lines = append(lines, strings.TrimRight(l, " \t\r"))
			}
		}
		obs = strings.Join(lines, "\n")
	}
	out.Observations = normalizeLines(obs)
	if out.Observations == "" {
		return Output{}, fmt.Errorf("%w: the observer wrote no observations", ErrBadOutput)
	}
	if Degenerate(out.Observations) {
		return Output{}, fmt.Errorf("%w: the observer's output is degenerate (repetitive)", ErrBadOutput)
	}
	out.CurrentTask, _ = section(text, "current-task")
	out.Suggested, _ = section(text, "suggested-response")
	return out, nil
}

// ParseReflection reads a reflector answer: the <observations> section, or
// the whole answer when the model left the tags out.
func ParseReflection(text string) (string, error) {
	obs, ok := section(text, "observations")
	if !ok {
		obs = text
	}
	obs = normalizeLines(obs)
	if obs == "" {
		return "", fmt.Errorf("%w: the reflection is empty", ErrBadOutput)
	}
	if Degenerate(obs) {
		return "", fmt.Errorf("%w: the reflection is degenerate (repetitive)", ErrBadOutput)
	}
	return obs, nil
}

// normalizeLines trims trailing spaces and blank runs.
func normalizeLines(s string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// Degenerate reports output a model produced in a loop: the same lines
// over and over, or text so repetitive that it compresses to almost
// nothing. Date headers may repeat; facts should not.
func Degenerate(s string) bool {
	lines := 0
	seen := map[string]int{}
	dups := 0
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "Date:") {
			continue
		}
		lines++
		seen[t]++
		if seen[t] > 1 {
			dups++
		}
	}
	if lines >= 6 && dups*2 > lines {
		return true
	}
	for _, n := range seen {
		if n >= 8 {
			return true
		}
	}
	if len(s) >= 2048 {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestSpeed)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		if b.Len()*12 < len(s) { // better than 12:1: a loop, not prose
			return true
		}
	}
	return false
}
