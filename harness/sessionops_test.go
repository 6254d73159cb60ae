package harness_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/session"
)

// TestSessionSwapRefusedWhileRunning: while a run is going, every
// operation that replaces or moves the current session is refused with
// *BusyError and changes nothing; naming and labelling (one appended entry
// each) still work, as the session host's lock rule says. The run then
// ends in the session it started in.
func TestSessionSwapRefusedWhileRunning(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Match: "first", Text: "noted"},
		{Match: "long", Text: strings.Repeat("word ", 400), ChunkDelayMs: 20},
	})
	ctx := context.Background()
	f.prompt(t, "first")
	f.wait(t)
	before := f.h.SessionInfo()
	turns, err := f.h.Turns()
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns %v %v", turns, err)
	}
	other, err := session.Create(ctx, f.root, f.dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherPath := other.Path()
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	idle := len(f.rec.all())
	f.prompt(t, "long answer please")
	waitFor(t, "streaming", func() bool {
		return slices.ContainsFunc(f.rec.all()[idle:], func(e harness.Event) bool { return e.Type == harness.EvMessageUpdate })
	})
	sessionEvents := func() int {
		n := 0
		for _, e := range f.rec.all() {
			if e.Type == harness.EvSession {
				n++
			}
		}
		return n
	}
	seen := sessionEvents()
	ops := map[string]func() error{
		"new":   func() error { _, err := f.h.NewSession(ctx, ""); return err },
		"open":  func() error { _, err := f.h.OpenSession(ctx, otherPath); return err },
		"close": func() error { return f.h.CloseSession() },
		"fork":  func() error { _, _, err := f.h.Fork(ctx, turns[0].ID, false); return err },
		"clone": func() error { _, err := f.h.Clone(ctx); return err },
		"navigate": func() error {
			_, err := f.h.Navigate(ctx, turns[0].ID, harness.NavigateOptions{})
			return err
		},
		"navigate+summary": func() error {
			_, err := f.h.Navigate(ctx, turns[0].ID, harness.NavigateOptions{Summarize: true})
			return err
		},
	}
	for name, op := range ops {
		var busy *harness.BusyError
		if err := op(); !errors.As(err, &busy) {
			t.Errorf("%s while running: err %v, want *BusyError", name, err)
		}
		if got := f.h.SessionInfo(); got.Path != before.Path {
			t.Fatalf("%s while running moved the session to %s", name, got.Path)
		}
	}
	if n := sessionEvents(); n != seen {
		t.Errorf("refused operations emitted %d session_change events", n-seen)
	}
	if err := f.h.SetName(ctx, "named mid-run"); err != nil {
		t.Errorf("name while running: %v", err)
	}
	if err := f.h.Label(ctx, turns[0].ID, "mid-run"); err != nil {
		t.Errorf("label while running: %v", err)
	}
	f.h.Abort()
	f.wait(t)
	if got := f.h.SessionInfo(); got.Path != before.Path || got.Name != "named mid-run" {
		t.Fatalf("after the run: %+v, want %s named", got, before.Path)
	}
	want := []string{"user:first", "assistant:stop", "user:long answer please", "assistant:aborted"}
	if got := f.roles(t); !slices.Equal(got, want) {
		t.Fatalf("session: got %v want %v", got, want)
	}
	// Idle again: the same operation is granted.
	if _, err := f.h.OpenSession(ctx, otherPath); err != nil {
		t.Fatalf("open when idle: %v", err)
	}
}

// TestFailedSessionOpenKeepsCurrent: an open, fork or clone that fails
// leaves the current session current, open for writing and unchanged, and
// tells no display about a session change.
func TestFailedSessionOpenKeepsCurrent(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Match: "one", Text: "first answer"}, {Match: "two", Text: "second answer"}})
	ctx := context.Background()
	f.prompt(t, "one")
	f.wait(t)
	before := f.h.SessionInfo()
	held, err := session.Create(ctx, f.root, f.dir, session.CreateOptions{}) // another writer holds it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = held.Close() })
	seen := len(f.rec.all())

	var locked *session.LockedError
	if _, err := f.h.OpenSession(ctx, held.Path()); !errors.As(err, &locked) {
		t.Fatalf("open of a locked session: %v, want *session.LockedError", err)
	}
	if _, err := f.h.OpenSession(ctx, filepath.Join(f.root, "missing.jsonl")); err == nil {
		t.Fatal("open of a missing file succeeded")
	}
	if _, _, err := f.h.Fork(ctx, "no-such-entry", false); err == nil {
		t.Fatal("fork at a missing entry succeeded")
	}
	if got := f.h.SessionInfo(); got != before {
		t.Fatalf("after failed opens: %+v, want %+v", got, before)
	}
	for _, e := range f.rec.all()[seen:] {
		if e.Type == harness.EvSession {
			t.Fatalf("a failed open emitted session_change: %+v", e)
		}
	}
	// Still current and still writable: the next run lands in it.
	f.prompt(t, "two")
	f.wait(t)
	want := []string{"user:one", "assistant:stop", "user:two", "assistant:stop"}
	if got := f.roles(t); !slices.Equal(got, want) {
		t.Fatalf("session: got %v want %v", got, want)
	}
	if got := f.h.SessionInfo(); got != before {
		t.Fatalf("after the next run: %+v, want %+v", got, before)
	}
}
