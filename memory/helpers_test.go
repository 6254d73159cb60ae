package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// fakeModel answers observer and reflector requests, told apart by their
// system prompts, with functions of the prompt.
type fakeModel struct {
	observe   func(prompt string) (string, error)
	reflect   func(prompt string, call int) (string, error)
	obsCalls  atomic.Int32
	refCalls  atomic.Int32
	gate      chan struct{} // when set, observer calls wait on it
	inFlight  atomic.Int32
	maxFlight atomic.Int32
}

func (f *fakeModel) Stream(ctx context.Context, req llm.Request, _ func(llm.Event)) llm.Message {
	prompt := req.Messages[0].Text()
	var text string
	var err error
	switch req.SystemPrompt {
	case ObserverSystemPrompt:
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		if n > f.maxFlight.Load() {
			f.maxFlight.Store(n)
		}
		f.obsCalls.Add(1)
		if f.gate != nil {
			select {
			case <-f.gate:
			case <-ctx.Done():
				return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopAborted}
			}
		}
		if f.observe == nil {
			text = defaultObservation(prompt)
		} else {
			text, err = f.observe(prompt)
		}
	case ReflectorSystemPrompt:
		n := int(f.refCalls.Add(1))
		if f.reflect == nil {
			text = "<observations>\nDate: Dec 4, 2025\n* 🔴 (10:00) condensed\n</observations>"
		} else {
			text, err = f.reflect(prompt, n)
		}
	default:
		err = fmt.Errorf("unexpected system prompt %q", req.SystemPrompt)
	}
	if err != nil {
		return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: err.Error()}
	}
	return llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopStop, Content: []llm.ContentBlock{llm.TextBlock(text)}}
}

// defaultObservation observes each "[hh:mm User]" / tool call line of the
// prompt as one line, so chunks differ.
func defaultObservation(prompt string) string {
	var lines []string
	for _, l := range strings.Split(prompt, "\n") {
		if strings.HasPrefix(l, "[") && (strings.Contains(l, "User]") || strings.Contains(l, "tool call")) {
			lines = append(lines, "* 🟡 (10:00) "+truncateTest(l, 80))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, "* 🟢 (10:00) tool output seen")
	}
	return "<observations>\nDate: Dec 4, 2025\n" + strings.Join(lines, "\n") + "\n</observations>\n<current-task>\nreading files\n</current-task>\n<suggested-response>\nread the next file\n</suggested-response>"
}

func truncateTest(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// fakeSession is a branch: message entries and custom records, appended
// concurrently.
type fakeSession struct {
	mu      sync.Mutex
	msgs    []Msg
	records []record
	fail    error
	n       int
}

type record struct {
	typ  string
	data json.RawMessage
}

func (s *fakeSession) AppendCustom(_ context.Context, typ string, data any) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", s.fail
	}
	b, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	s.records = append(s.records, record{typ, b})
	s.n++
	return fmt.Sprintf("c%07d", s.n), nil
}

func (s *fakeSession) add(role llm.Role, text string, tokens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	m := llm.Message{Role: role, Content: []llm.ContentBlock{llm.TextBlock(text)}, Timestamp: time.Date(2025, 12, 4, 10, 0, 0, 0, time.UTC).UnixMilli()}
	if role == llm.RoleToolResult {
		m.ToolName = "read"
	}
	s.msgs = append(s.msgs, Msg{EntryID: fmt.Sprintf("m%07d", s.n), Message: &m, Tokens: tokens})
}

// turn adds a user prompt, a tool call, its result and an answer.
func (s *fakeSession) turn(i, resultTokens int) {
	s.add(llm.RoleUser, fmt.Sprintf("Turn %d: read f%03d.txt", i, i), 10)
	s.mu.Lock()
	s.n++
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{{Type: llm.BlockToolCall, ID: fmt.Sprint("c", i), Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%03d.txt"}`, i))}}}
	s.msgs = append(s.msgs, Msg{EntryID: fmt.Sprintf("m%07d", s.n), Message: &m, Tokens: 20})
	s.mu.Unlock()
	s.add(llm.RoleToolResult, strings.Repeat(fmt.Sprintf("f%03d 12345 67890\n", i), resultTokens/8), resultTokens)
	s.add(llm.RoleAssistant, fmt.Sprintf("f%03d holds numbers.", i), 10)
}

func (s *fakeSession) snapshot() []Msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Msg(nil), s.msgs...)
}

func (s *fakeSession) recs() []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]record(nil), s.records...)
}

func countTest(s string) int { return (len(s) + 2) / 3 }

func newTestEngine(t *testing.T, fm *fakeModel, fs *fakeSession) *Engine {
	t.Helper()
	e := NewEngine(Config{Streamer: fm, Session: fs, Count: countTest,
		Now: func() time.Time { return time.Date(2025, 12, 4, 10, 0, 0, 0, time.UTC) }})
	t.Cleanup(e.Close)
	return e
}

// replay folds the recorded entries into a fresh state.
func replay(t *testing.T, fs *fakeSession) State {
	t.Helper()
	var st State
	for _, r := range fs.recs() {
		if err := st.Apply(r.typ, r.data); err != nil {
			t.Fatalf("replay: %v", err)
		}
	}
	return st
}

// checkCoverage asserts the cursor invariant: the active chunks cover the
// messages from the first one after the reflection to the cursor, without
// gap or overlap, the buffered ones continue from the cursor, and the raw
// view is exactly the messages after the cursor.
func checkCoverage(t *testing.T, st State, msgs []Msg, v View) {
	t.Helper()
	pos := map[string]int{}
	for i, m := range msgs {
		pos[m.EntryID] = i
	}
	next := -1 // the first message the next chunk must start at; -1 = unknown (after a reflection)
	if st.Reflection == nil {
		next = 0
	}
	chunks := append(append([]Chunk(nil), st.Active...), st.Buffered...)
	for k, c := range chunks {
		f, ok1 := pos[c.From]
		to, ok2 := pos[c.To]
		if !ok1 || !ok2 || f > to {
			t.Fatalf("chunk %d: range %s..%s not on the branch", c.Seq, c.From, c.To)
		}
		if next >= 0 && f != next {
			t.Fatalf("chunk %d starts at message %d, expected %d (gap or overlap)", c.Seq, f, next)
		}
		if k < len(st.Active) && k == len(st.Active)-1 && c.To != st.Cursor {
			t.Fatalf("the last active chunk ends at %s, the cursor is %s", c.To, st.Cursor)
		}
		next = to + 1
	}
	want := 0
	if st.Cursor != "" {
		want = pos[st.Cursor] + 1
	}
	if v.RawFrom != want {
		t.Fatalf("raw view starts at %d, the cursor says %d", v.RawFrom, want)
	}
}

func fixedNow() time.Time { return time.Date(2025, 12, 4, 10, 0, 0, 0, time.UTC) }

// fixedBudget is BudgetFor with shareTokenBudget off: Mastra's fixed
// thresholds, which the engine tests exercise.
func fixedBudget(window int, s Settings) Budget {
	b := BudgetFor(window, s)
	b.Share = false
	return b
}
