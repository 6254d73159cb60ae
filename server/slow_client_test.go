package server_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// pausedReader is the client's end of the server's output: while paused
// the client reads nothing, so the server's writer blocks on the pipe.
type pausedReader struct {
	r      io.Reader
	mu     sync.Mutex
	paused bool
	resume *sync.Cond
}

func newPausedReader(r io.Reader) *pausedReader {
	p := &pausedReader{r: r}
	p.resume = sync.NewCond(&p.mu)
	return p
}

func (p *pausedReader) Read(b []byte) (int, error) {
	p.mu.Lock()
	for p.paused {
		p.resume.Wait()
	}
	p.mu.Unlock()
	return p.r.Read(b)
}

func (p *pausedReader) set(paused bool) {
	p.mu.Lock()
	p.paused = paused
	p.mu.Unlock()
	p.resume.Broadcast()
}

// A client that stops reading while a run streams far more token deltas
// than the backlog holds still gets every terminal event — the error and
// agent_end — after them, and the whole text: only the deltas were merged.
func TestSlowClientKeepsTerminalEvents(t *testing.T) {
	src := &fakeSource{}
	srv, _ := displayServer(src, nil)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	pr := newPausedReader(cr)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), sr, sw) }()
	c := rpctest.New(pr, cw)
	t.Cleanup(func() {
		pr.set(false)
		_ = c.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after the input closed")
		}
	})
	initC := &rpctest.Conn{Client: c, Srv: srv, Result: done}
	rpctest.Init(t, initC, map[string]any{"capabilities": map[string]any{"harnessEvents": true}})
	rpctest.Echo(t, initC, "ready") // the event writer is attached and idle

	pr.set(true)
	const deltas = 20000
	var want strings.Builder
	src.emit(harness.Event{Type: harness.EvAgentStart})
	for i := range deltas {
		d := string(rune('a'+i%26)) + " "
		want.WriteString(d)
		src.emit(harness.Event{Type: harness.EvMessageUpdate, DeltaKind: "text", Delta: d})
		if i == deltas/2 {
			src.emit(harness.Event{Type: harness.EvError, Error: "provider failed halfway"})
		}
	}
	src.emit(harness.Event{Type: harness.EvAgentEnd, Reason: "error"})
	pr.set(false)

	var got strings.Builder
	var types []harness.EventType
	// The condition looks at the newest event only: copying every
	// notification on each arrival made the wait quadratic in the
	// thousands of events, which a loaded machine could not finish in time.
	err := c.WaitFor(rpctest.Ctx(t), func() bool {
		n, ok := c.LastNotification("harness/event")
		return ok && strings.Contains(string(n.Params), `"agent_end"`)
	})
	if err != nil {
		t.Fatalf("agent_end never arrived: %v", err)
	}
	var lastSeq uint64
	for _, n := range c.Notifications("harness/event") {
		var p struct{ Event harness.Event }
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Event.Seq <= lastSeq {
			t.Fatalf("seq %d after %d", p.Event.Seq, lastSeq)
		}
		lastSeq = p.Event.Seq
		types = append(types, p.Event.Type)
		if p.Event.Type == harness.EvMessageUpdate {
			got.WriteString(p.Event.Delta)
		}
	}
	if got.String() != want.String() {
		t.Fatalf("the merged deltas give %d bytes of text, want %d", got.Len(), want.Len())
	}
	count := map[harness.EventType]int{}
	for _, ty := range types {
		count[ty]++
	}
	if count[harness.EvAgentStart] != 1 || count[harness.EvError] != 1 || count[harness.EvAgentEnd] != 1 {
		t.Fatalf("terminal events: %v", count)
	}
	if types[len(types)-1] != harness.EvAgentEnd || lastSeq != deltas+3 {
		t.Fatalf("last event %s seq %d, want agent_end seq %d", types[len(types)-1], lastSeq, deltas+3)
	}
	if count[harness.EvMessageUpdate] >= deltas {
		t.Fatalf("%d message_update for %d deltas: nothing was merged for a client that did not read", count[harness.EvMessageUpdate], deltas)
	}
	t.Logf("%d deltas reached the client as %d message_update", deltas, count[harness.EvMessageUpdate])
}
