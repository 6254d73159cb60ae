package server_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/display/displaytest"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
	"github.com/pi-lsp/pi-lsp/server"
)

// fakeSource is an EventSource that fans events out synchronously.
type fakeSource struct {
	mu   sync.Mutex
	subs map[int]func(harness.Event)
	n    int
	seq  uint64
}

func (s *fakeSource) Subscribe(fn func(harness.Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = map[int]func(harness.Event){}
	}
	id := s.n
	s.n++
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}
}

func (s *fakeSource) emit(ev harness.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	ev.Seq = s.seq
	for _, fn := range s.subs {
		fn(ev)
	}
}

func (s *fakeSource) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// displayServer wires a reducer fed by src and attaches every client to it.
func displayServer(src *fakeSource, clk display.Clock) (*rpc.Server, *display.Reducer) {
	r := display.NewReducer(display.ReducerOptions{})
	src.Subscribe(r.Apply)
	p := server.Pusher{Clock: clk}
	srv := rpctest.EchoServer(rpc.Options{
		OnInitialize: func(_ context.Context, c *rpc.Client, _ rpc.InitializeParams) error {
			p.AttachDisplay(c, r)
			server.AttachEvents(c, src)
			return nil
		},
	})
	p.Register(srv)
	return srv, r
}

func waitDisplay(t *testing.T, c *rpctest.Conn, r *display.Reducer) {
	t.Helper()
	want, _ := json.Marshal(r.State())
	var got []byte
	err := c.WaitFor(rpctest.Ctx(t), func() bool {
		v, err := c.Display()
		if err != nil || v.Err != nil {
			return false
		}
		got, _ = json.Marshal(v.State)
		return string(got) == string(want)
	})
	if err != nil {
		v, _ := c.Display()
		t.Fatalf("client display never matched the reducer (%v, display err %v)\nclient: %s\nwant:   %s", err, v.Err, got, want)
	}
}

func TestDisplayFrames(t *testing.T) {
	src := &fakeSource{}
	clk := displaytest.NewFakeClock(time.Unix(0, 0))
	srv, r := displayServer(src, clk)
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	waitDisplay(t, c, r) // the first frame: the full state, version 1

	src.emit(harness.Event{Type: harness.EvAgentStart})
	user := llm.UserText("hi", 1)
	src.emit(harness.Event{Type: harness.EvMessageStart, Message: &user})
	src.emit(harness.Event{Type: harness.EvMessageStart, Message: &llm.Message{Role: llm.RoleAssistant}})
	// The first words ride in the item's push; once the item is on the
	// client, what follows is sent as appends, never as the whole text again.
	stream := func(words string) {
		for _, w := range strings.Fields(words) {
			src.emit(harness.Event{Type: harness.EvMessageUpdate, DeltaKind: "text", Delta: w + " "})
			clk.Advance(20 * time.Millisecond)
		}
		clk.Advance(time.Second)
		waitDisplay(t, c, r)
	}
	stream("streamed text")
	stream("arrives as appends")
	var sawAppend bool
	for _, n := range c.Notifications("display/state") {
		p := string(n.Params)
		if strings.Contains(p, `streamed text arrives`) {
			t.Fatalf("streamed text was resent whole: %s", p)
		}
		sawAppend = sawAppend || strings.Contains(p, `["a",["items",1,"text"],"arrives as appends "]`)
	}
	if !sawAppend {
		t.Fatalf("the later text was not sent as an append: %v", c.Notifications("display/state"))
	}
	src.emit(harness.Event{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c1", ToolName: "write"}})
	waitDisplay(t, c, r) // urgent: no clock advance needed

	var snap display.Snapshot
	if err := c.Call(rpctest.Ctx(t), "display/snapshot", nil, &snap); err != nil {
		t.Fatal(err)
	}
	v, _ := c.Display()
	if snap.Version <= v.Version || !reflect.DeepEqual(snap.State, v.State) {
		t.Fatalf("snapshot v%d (client at v%d) differs:\n%+v\n%+v", snap.Version, v.Version, snap.State, v.State)
	}
	// Frames after a snapshot follow its version.
	src.emit(harness.Event{Type: harness.EvAgentEnd})
	if err := c.WaitFor(rpctest.Ctx(t), func() bool {
		ns := c.Notifications("display/state")
		var f display.Frame
		_ = json.Unmarshal(ns[len(ns)-1].Params, &f)
		return f.Version == snap.Version+1
	}); err != nil {
		t.Fatalf("no frame after the snapshot: %v", err)
	}
}

func TestDisplayResyncAfterGap(t *testing.T) {
	src := &fakeSource{}
	srv, r := displayServer(src, nil)
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	waitDisplay(t, c, r)
	// A display/snapshot from elsewhere bumps the version: the client sees a
	// gap at the next frame, resyncs, and catches up.
	var snap display.Snapshot
	if err := c.Call(rpctest.Ctx(t), "display/snapshot", nil, &snap); err != nil {
		t.Fatal(err)
	}
	src.emit(harness.Event{Type: harness.EvModel, Model: "x/y"})
	_ = c.WaitFor(rpctest.Ctx(t), func() bool { v, _ := c.Display(); return v.Frames >= 2 })
	if v, _ := c.Display(); !v.Stale || v.Gaps != 1 {
		t.Fatalf("gap not detected: %+v", v)
	}
	if err := c.Resync(rpctest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	src.emit(harness.Event{Type: harness.EvMode, Mode: "plan"})
	waitDisplay(t, c, r)
}

func TestHarnessEventsOptIn(t *testing.T) {
	for _, optIn := range []bool{true, false} {
		src := &fakeSource{}
		srv, _ := displayServer(src, nil)
		c := rpctest.Serve(t, srv)
		rpctest.Init(t, c, map[string]any{"capabilities": map[string]any{"harnessEvents": optIn}})
		for i := range 100 {
			src.emit(harness.Event{Type: harness.EvMessageUpdate, DeltaKind: "text", Delta: string(rune('a' + i%26))})
		}
		src.emit(harness.Event{Type: harness.EvAgentEnd})
		if !optIn {
			rpctest.Echo(t, c, "x")
			if n := len(c.Notifications("harness/event")); n != 0 {
				t.Fatalf("%d harness/event without opting in", n)
			}
			continue
		}
		if err := c.WaitFor(rpctest.Ctx(t), func() bool { return len(c.Notifications("harness/event")) == 101 }); err != nil {
			t.Fatalf("harness/event count = %d: %v", len(c.Notifications("harness/event")), err)
		}
		for i, n := range c.Notifications("harness/event") {
			var p struct{ Event harness.Event }
			if err := json.Unmarshal(n.Params, &p); err != nil || p.Event.Seq != uint64(i+1) {
				t.Fatalf("event %d: seq %d, %v", i, p.Event.Seq, err)
			}
		}
	}
}

func TestDisconnectDetaches(t *testing.T) {
	src := &fakeSource{}
	var gone sync.WaitGroup
	gone.Add(1)
	r := display.NewReducer(display.ReducerOptions{})
	srv := rpctest.EchoServer(rpc.Options{
		OnInitialize: func(_ context.Context, c *rpc.Client, _ rpc.InitializeParams) error {
			server.Pusher{}.AttachDisplay(c, r)
			server.AttachEvents(c, src)
			return nil
		},
		OnDisconnect: func(*rpc.Client) { gone.Done() },
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, map[string]any{"capabilities": map[string]any{"harnessEvents": true}})
	if src.count() != 1 {
		t.Fatalf("subscriptions = %d", src.count())
	}
	_ = c.Close()
	gone.Wait()
	if src.count() != 0 {
		t.Fatalf("subscription left after disconnect")
	}
	r.Apply(harness.Event{Type: harness.EvAgentStart}) // no scheduler left to feed
}

func TestLogMessageAndProgress(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/log", func(_ context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
		c.Log(-4, "debug detail") // slog.LevelDebug
		c.Log(0, "info line")     // slog.LevelInfo
		c.Log(8, "error line")    // slog.LevelError
		_ = c.Progress("compaction-1", protocol.WorkProgress{Kind: "begin", Title: "Compacting context", Percentage: new(int)})
		return nil, nil
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, map[string]any{"initializationOptions": map[string]any{"logLevel": "info"}})
	if err := c.Call(rpctest.Ctx(t), "test/log", nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.WaitFor(rpctest.Ctx(t), func() bool { return len(c.Notifications("$/progress")) == 1 })
	var got []string
	for _, n := range c.Notifications("window/logMessage") {
		got = append(got, string(n.Params))
	}
	want := []string{`{"type":3,"message":"info line"}`, `{"type":1,"message":"error line"}`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("logMessage = %v, want %v", got, want)
	}
	if p := string(c.Notifications("$/progress")[0].Params); p != `{"token":"compaction-1","value":{"kind":"begin","title":"Compacting context","percentage":0}}` {
		t.Fatalf("progress = %s", p)
	}
}

// TestDisplayWireBytes measures the real wire: a 200-word answer streamed
// in 4-byte chunks at 800 characters/s costs at most twice its size in
// display/state notifications (framed), as display's own test computes.
func TestDisplayWireBytes(t *testing.T) {
	src := &fakeSource{}
	clk := displaytest.NewFakeClock(time.Unix(0, 0))
	srv, r := displayServer(src, clk)
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	waitDisplay(t, c, r)
	before := c.Notifications("display/state")

	words := strings.Fields("the harness keeps a long agent session alive by rebuilding the prompt on every turn")
	var answer strings.Builder
	for i := range 200 {
		if i > 0 {
			answer.WriteByte(' ')
		}
		answer.WriteString(words[i%len(words)])
	}
	ans := answer.String()
	user := llm.UserText("explain", 1)
	src.emit(harness.Event{Type: harness.EvAgentStart})
	src.emit(harness.Event{Type: harness.EvMessageStart, Message: &user})
	src.emit(harness.Event{Type: harness.EvMessageEnd, Message: &user})
	src.emit(harness.Event{Type: harness.EvMessageStart, Message: &llm.Message{Role: llm.RoleAssistant}})
	for i := 0; i < len(ans); i += 4 {
		src.emit(harness.Event{Type: harness.EvMessageUpdate, DeltaKind: "text", Delta: ans[i:min(i+4, len(ans))]})
		clk.Advance(5 * time.Millisecond)
	}
	final := llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock(ans)}}
	src.emit(harness.Event{Type: harness.EvMessageEnd, Message: &final})
	src.emit(harness.Event{Type: harness.EvAgentEnd})
	waitDisplay(t, c, r)
	bytes := 0
	run := c.Notifications("display/state")[len(before):]
	for _, n := range run {
		bytes += n.Bytes
	}
	ratio := float64(bytes) / float64(len(ans))
	t.Logf("answer %d bytes; %d display/state notifications, %d bytes framed: %.2fx", len(ans), len(run), bytes, ratio)
	if ratio > 2 {
		t.Fatalf("display/state weighs %.2fx the answer, want <= 2x", ratio)
	}
	if v, _ := c.Display(); v.State.Items[1].Text != ans {
		t.Fatalf("the client's copy of the answer differs")
	}
}
