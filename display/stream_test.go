package display_test

import (
	"context"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
)

// A scheduler names its stream on every frame and snapshot; retired, it
// hands its successor the last version it gave out (frames and snapshots
// alike) and answers no more snapshots, so nothing of it can look newer
// than the successor's first frame.
func TestSchedulerStreamAndRetire(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	s := display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), Stream: "abc"})
	f, err := s.Next(context.Background())
	if err != nil || f.Stream != "abc" || f.Version != 1 || f.State == nil {
		t.Fatalf("first frame %+v %v", f, err)
	}
	r.Apply(ev(harness.EvAgentStart))
	f, _ = s.Next(context.Background())
	if f.Stream != "abc" || f.Version != 2 || f.Ops == nil {
		t.Fatalf("ops frame %+v", f)
	}
	snap, ok := s.TrySnapshot()
	if !ok || snap.Stream != "abc" || snap.Version != 3 {
		t.Fatalf("snapshot %+v %v", snap, ok)
	}
	if v := s.Retire(); v != 3 {
		t.Fatalf("retired at %d, want 3 (the snapshot's version)", v)
	}
	if _, ok := s.TrySnapshot(); ok {
		t.Fatal("a retired scheduler answered a snapshot")
	}
	next := display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), Stream: "abc", AfterVersion: 3})
	f, _ = next.Next(context.Background())
	if f.Stream != "abc" || f.Version != 4 || f.State == nil {
		t.Fatalf("successor's first frame %+v", f)
	}
	if a, b := display.NewStreamID(), display.NewStreamID(); a == b || len(a) != 8 {
		t.Fatalf("stream ids %q %q", a, b)
	}
}
