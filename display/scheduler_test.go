package display_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

func TestSchedulerFirstFrameIsFullState(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	r.Apply(harness.Event{Type: harness.EvModel, Model: "fake/m1"})
	c := newClient(t, r, newFake())
	if len(c.frames) != 1 || c.frames[0].Version != 1 || c.frames[0].State == nil || c.frames[0].State.Model != "fake/m1" {
		t.Fatalf("first frames = %+v", c.frames)
	}
}

func TestSchedulerDebounceAndCap(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	clk := newFake()
	c := newClient(t, r, clk)
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	r.Apply(delta("text", "a"))

	// Debounce: nothing until the updates pause for 250 ms.
	clk.Advance(249 * time.Millisecond)
	if f := c.drain(); len(f) != 0 {
		t.Fatalf("flushed before the debounce: %+v", f)
	}
	clk.Advance(time.Millisecond)
	if f := c.drain(); len(f) != 1 {
		t.Fatalf("frames after the pause = %d, want 1", len(f))
	}

	// Cap: a chunk every 100 ms never pauses, but a frame leaves every 500 ms.
	var at []time.Duration
	for i := 1; i <= 20; i++ {
		r.Apply(delta("text", "b"))
		clk.Advance(100 * time.Millisecond)
		if f := c.drain(); len(f) > 0 {
			at = append(at, time.Duration(i)*100*time.Millisecond)
		}
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second}
	if !reflect.DeepEqual(at, want) {
		t.Fatalf("frames at %v, want %v", at, want)
	}
	c.check(r)
}

func TestSchedulerUrgentFlushesAtOnce(t *testing.T) {
	urgent := []harness.Event{
		ev(harness.EvAgentStart),
		ev(harness.EvAgentEnd),
		{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c"}},
		{Type: harness.EvQuestion, Question: &tools.Question{ID: "q"}},
		{Type: harness.EvPlan, Plan: &tools.Plan{ID: "p"}},
		{Type: harness.EvError, Error: "boom"},
		{Type: harness.EvMode, Mode: "plan"},
		{Type: harness.EvModel, Model: "x/y"},
		{Type: harness.EvToolEnd, ToolCallID: "c", Output: "done"},
		{Type: harness.EvQueueUpdate, FollowUp: []string{"next"}},
	}
	for _, u := range urgent {
		t.Run(string(u.Type), func(t *testing.T) {
			r := display.NewReducer(display.ReducerOptions{})
			c := newClient(t, r, newFake())
			if u.Type == harness.EvAgentEnd {
				r.Apply(ev(harness.EvAgentStart))
				c.drain()
			}
			r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
			r.Apply(delta("text", "pending text"))
			if f := c.drain(); len(f) != 0 {
				t.Fatalf("non-urgent update flushed at once")
			}
			r.Apply(u)
			f := c.drain()
			if len(f) != 1 {
				t.Fatalf("urgent %s: %d frames, want 1", u.Type, len(f))
			}
			// The urgent frame carries the batched ops before it, in order.
			if f[0].Ops[0].Op != display.OpPush {
				t.Fatalf("urgent frame does not start with the pending ops: %+v", f[0].Ops)
			}
			c.check(r)
		})
	}
	t.Run("not urgent", func(t *testing.T) {
		r := display.NewReducer(display.ReducerOptions{})
		c := newClient(t, r, newFake())
		for _, e := range []harness.Event{
			{Type: harness.EvPhase, Phase: harness.PhaseTurn},
			{Type: harness.EvUsage, Tokens: &harness.Tokens{Total: 1}},
			{Type: harness.EvTasks, Tasks: []tools.Task{{ID: "a"}}},
			{Type: harness.EvToolUpdate, ToolCallID: "c", Output: "x"},
		} {
			r.Apply(e)
		}
		if f := c.drain(); len(f) != 0 {
			t.Fatalf("non-urgent events flushed: %+v", f)
		}
	})
}

func TestSchedulerCoalescesAppends(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	stream := func() {
		for _, w := range words {
			r.Apply(delta("text", w+" "))
			r.Apply(delta("thinking", "."))
		}
	}
	stream()
	c.s.Flush()
	f := c.drain()
	// The item was pushed in this frame: it goes out whole, with the text
	// streamed so far, and no append follows.
	if len(f) != 1 || len(f[0].Ops) != 1 || f[0].Ops[0].Op != display.OpPush {
		t.Fatalf("first frame = %+v", f)
	}
	it := f[0].Ops[0].Value.(display.Item)
	if it.Text != strings.Join(words, " ")+" " || it.Thinking != strings.Repeat(".", len(words)) || !it.Streaming {
		t.Fatalf("pushed item = %+v", it)
	}
	// Later chunks are one append per field, whatever their number.
	stream()
	c.s.Flush()
	f = c.drain()
	if len(f) != 1 {
		t.Fatalf("frames = %d", len(f))
	}
	ops := f[0].Ops
	if len(ops) != 2 || ops[0].Op != display.OpAppend || ops[1].Op != display.OpAppend {
		t.Fatalf("ops = %+v", ops)
	}
	if ops[0].Value != strings.Join(words, " ")+" " || ops[1].Value != strings.Repeat(".", len(words)) {
		t.Fatalf("append values = %q %q", ops[0].Value, ops[1].Value)
	}
	c.check(r)
}

func TestSchedulerFoldsChangesIntoANewItem(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	// A tool that starts, streams and ends within one frame is sent as one
	// push of the finished item (tool end is urgent and flushes the batch).
	r.Apply(harness.Event{Type: harness.EvToolStart, ToolCallID: "c1", ToolName: "bash", Args: json.RawMessage(`{"command":"ls"}`)})
	r.Apply(harness.Event{Type: harness.EvToolUpdate, ToolCallID: "c1", Output: "a\n"})
	r.Apply(harness.Event{Type: harness.EvToolUpdate, ToolCallID: "c1", Output: "a\nb\n"})
	r.Apply(harness.Event{Type: harness.EvToolEnd, ToolCallID: "c1", ToolName: "bash", Output: "a\nb\n", IsError: true})
	f := c.drain()
	if len(f) != 1 {
		t.Fatalf("frames = %d: %+v", len(f), f)
	}
	var pushes []display.Item
	for _, op := range f[0].Ops {
		if len(op.Path) > 0 && op.Path[0] == "items" {
			if op.Op != display.OpPush {
				t.Fatalf("op on the new item not folded into its push: %+v", op)
			}
			pushes = append(pushes, op.Value.(display.Item))
		}
	}
	if len(pushes) != 1 || pushes[0].Status != display.ToolError || pushes[0].Output != "a\nb\n" || !pushes[0].IsError {
		t.Fatalf("pushed items = %+v", pushes)
	}
	c.check(r)
}

func TestSchedulerSetOverridesPending(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	for _, m := range []string{"a", "b", "c"} {
		r.Apply(harness.Event{Type: harness.EvThinking, Thinking: "low"})
		r.Apply(harness.Event{Type: harness.EvPhase, Phase: harness.Phase(m)})
	}
	c.s.Flush()
	f := c.drain()
	// Each set dropped the one before it; the two left are sets of the root's
	// keys, sent as one merge.
	if len(f) != 1 || len(f[0].Ops) != 1 || f[0].Ops[0].Op != display.OpMerge {
		t.Fatalf("frames = %+v", f)
	}
	if b, _ := json.Marshal(f[0].Ops[0]); string(b) != `["m",[],{"thinkingLevel":"low","phase":"c"}]` {
		t.Fatalf("merge op = %s", b)
	}
	c.check(r)
}

func TestSchedulerMergesOnlyNeighbouringSetsOfOneObject(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(harness.Event{Type: harness.EvThinking, Thinking: "low"})
	r.Apply(harness.Event{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: 5, Output: 7}})
	r.Apply(harness.Event{Type: harness.EvPhase, Phase: harness.PhaseTurn})
	r.Apply(harness.Event{Type: harness.EvUsage, Tokens: &harness.Tokens{Input: 5, Output: 7, CacheRead: 1}})
	c.s.Flush()
	f := c.drain()
	if len(f) != 1 {
		t.Fatalf("frames = %+v", f)
	}
	b, _ := json.Marshal(f[0].Ops)
	want := `[["s",["thinkingLevel"],"low"],["m",["tokens"],{"input":5,"output":7}],["s",["phase"],"turn"],["s",["tokens","cacheRead"],1]]`
	if string(b) != want {
		t.Fatalf("ops = %s\nwant %s", b, want)
	}
	c.check(r)
}

func TestFrameNeverMutatedAfterHandout(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	full := c.frames[0]
	fullJSON := string(mustJSON(t, full))
	r.Apply(ev(harness.EvAgentStart))
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	r.Apply(delta("text", "one"))
	r.Apply(harness.Event{Type: harness.EvTasks, Tasks: []tools.Task{{ID: "t", Status: "pending"}}})
	c.s.Flush()
	held := c.drain()
	heldJSON := string(mustJSON(t, held))
	for _, e := range runEvents() {
		r.Apply(e)
	}
	snap := c.s.Snapshot()
	snapJSON := string(mustJSON(t, snap))
	r.Apply(delta("text", "more"))
	r.Apply(harness.Event{Type: harness.EvTasks, Tasks: []tools.Task{{ID: "t", Status: "completed"}}})
	r.Apply(harness.Event{Type: harness.EvError, Error: "x"})
	if got := string(mustJSON(t, full)); got != fullJSON {
		t.Fatalf("full-state frame changed:\n%s\n%s", fullJSON, got)
	}
	if got := string(mustJSON(t, held)); got != heldJSON {
		t.Fatalf("held frames changed:\n%s\n%s", heldJSON, got)
	}
	if got := string(mustJSON(t, snap)); got != snapJSON {
		t.Fatalf("snapshot changed")
	}
}

func TestSlowClientCollapsesToFullState(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	s := display.NewScheduler(r, display.SchedulerOptions{Clock: newFake(), MaxQueue: 4})
	for i := range 50 {
		r.Apply(harness.Event{Type: harness.EvModel, Model: "m" + string(rune('a'+i%26))}) // urgent: one frame each
	}
	var frames []display.Frame
	for {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f, err := s.Next(ctx)
		if err != nil {
			break
		}
		frames = append(frames, f)
	}
	if len(frames) > 4 {
		t.Fatalf("queue held %d frames, bound 4", len(frames))
	}
	var full *display.Frame
	for i := range frames {
		if frames[i].State != nil {
			full = &frames[i]
		}
		if i > 0 && frames[i].Version != frames[i-1].Version+1 {
			t.Fatalf("versions not consecutive: %d then %d", frames[i-1].Version, frames[i].Version)
		}
	}
	if full == nil {
		t.Fatalf("no full-state frame after overflow: %+v", frames)
	}
	if last := frames[len(frames)-1]; last.Version != 51 {
		t.Fatalf("last version = %d, want 51 (1 initial + 50)", last.Version)
	}
	// The state frame plus the ops after it equal the reducer's state.
	c := &client{t: t, s: s}
	for _, f := range frames[indexOf(frames, full.Version):] {
		c.apply(f)
	}
	c.check(r)
}

func indexOf(frames []display.Frame, version int64) int {
	for i, f := range frames {
		if f.Version == version {
			return i
		}
	}
	return -1
}

func TestSnapshotDropsQueueAndBumpsVersion(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	c := newClient(t, r, newFake())
	r.Apply(ev(harness.EvAgentStart)) // frame 2, queued
	r.Apply(harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")})
	r.Apply(delta("text", "abc")) // pending
	snap := c.s.Snapshot()
	if snap.Version != 3 || snap.State.Items[0].Text != "abc" || snap.State.Status != display.StatusRunning {
		t.Fatalf("snapshot = %+v", snap)
	}
	if f := c.drain(); len(f) != 0 {
		t.Fatalf("frames after snapshot: %+v", f)
	}
	r.Apply(delta("text", "def"))
	c.s.Flush()
	c.doc = decode(t, mustJSON(t, snap.State))
	c.version = snap.Version
	f := c.drain()
	if len(f) != 1 || f[0].Version != 4 {
		t.Fatalf("frame after snapshot = %+v", f)
	}
	c.check(r)
}

func TestTwoClientsAreIndependent(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	clk := newFake()
	a := newClient(t, r, clk)
	for _, e := range runEvents()[:8] {
		r.Apply(e)
	}
	b := newClient(t, r, clk) // joins mid-stream
	for _, e := range runEvents()[8:] {
		r.Apply(e)
		clk.Advance(30 * time.Millisecond)
	}
	clk.Advance(time.Second)
	a.drain()
	b.drain()
	a.check(r)
	b.check(r)
	if a.version == b.version {
		t.Logf("versions coincide (%d); they are per client", a.version)
	}
	b.s.Close()
	if _, err := b.s.Next(context.Background()); !errors.Is(err, display.ErrClosed) {
		t.Fatalf("Next after Close = %v", err)
	}
	r.Apply(ev(harness.EvAgentStart))
	if len(a.drain()) != 1 {
		t.Fatalf("the other client stopped receiving")
	}
}

func TestNextWaitsForAFrame(t *testing.T) {
	r := display.NewReducer(display.ReducerOptions{})
	s := display.NewScheduler(r, display.SchedulerOptions{Clock: newFake()})
	if _, err := s.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := make(chan display.Frame)
	go func() {
		f, err := s.Next(context.Background())
		if err == nil {
			got <- f
		}
		close(got)
	}()
	r.Apply(ev(harness.EvAgentStart))
	if f, ok := <-got; !ok || f.Version != 2 {
		t.Fatalf("waiting Next got %+v %v", f, ok)
	}
}
