package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/outbox"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// EventSource is an ordered stream of harness events; *harness.Harness
// satisfies it. fn runs synchronously on the emitting goroutine, in order,
// and must not block; the returned func unsubscribes.
type EventSource interface {
	Subscribe(fn func(harness.Event)) (unsubscribe func())
}

// Pusher pushes display/state frames and harness/event notifications to
// clients. Each connection's display scheduler and event subscription live
// on the connection (rpc.Client.SetValue) and end with it.
type Pusher struct {
	// Clock is the display schedulers' clock (tests); nil is the wall clock.
	Clock display.Clock
}

// Register serves display/snapshot on s.
func (p Pusher) Register(s *rpc.Server) { s.Register("display/snapshot", snapshotHandler) }

// push is one connection's display scheduler and event subscription.
type push struct {
	mu      sync.Mutex
	display *display.Scheduler
	unsub   func()
}

type pushKey struct{}

// pushOf is c's push state, made on first use.
func pushOf(c *rpc.Client) *push { return c.LoadOrStore(pushKey{}, &push{}).(*push) }

// retire stops the pushes and returns the display stream and version the
// editor was sent last (the next scheduler of the connection, or of the
// process it attaches to, continues after it).
func (p *push) retire() displayAt {
	p.mu.Lock()
	sched, unsub := p.display, p.unsub
	p.display, p.unsub = nil, nil
	p.mu.Unlock()
	var at displayAt
	if sched != nil {
		at = displayAt{stream: sched.Stream(), version: sched.Retire()}
	}
	if unsub != nil {
		unsub()
	}
	return at
}

// Close stops the pushes (the connection ended); Retire closes the
// scheduler, so this is retire with its answer unused.
func (p *push) Close() { p.retire() }

// AttachDisplay gives the client its own display.Scheduler on r (one
// Reducer per harness, fed by harness.Attach with r.Apply) and pushes its
// frames as display/state notifications once the client has the initialize
// result: first the full state, then versioned ops. A later call replaces
// the earlier scheduler, continuing its stream and versions (a session
// switch): every frame of the old one is older than the new one's first. May
// be called from OnInitialize.
func (p Pusher) AttachDisplay(c *rpc.Client, r *display.Reducer) { p.attachDisplay(c, r, displayAt{}) }

// displayAt is where a connection's next scheduler continues: the stream
// and version the editor holds from another process (attach), or zero.
type displayAt struct {
	stream  string
	version int64
}

// attachDisplay is AttachDisplay continuing at (when set) rather than after
// the connection's previous scheduler.
func (p Pusher) attachDisplay(c *rpc.Client, r *display.Reducer, at displayAt) {
	// Under ps.mu, so display/snapshot asks either the old scheduler before
	// it retires or the new one.
	ps := pushOf(c)
	ps.mu.Lock()
	old := ps.display
	if old != nil && (at.stream == "" || at.version <= 0) {
		// Retired before the next one exists: its frames and snapshots
		// are all older than the next one's first frame.
		at = displayAt{stream: old.Stream(), version: old.Retire()}
	}
	if at.stream == "" || at.version <= 0 {
		at = displayAt{stream: display.NewStreamID()}
	}
	hold, _ := c.Server().Masker().(display.Holder) // the scheduler holds each item's unsafe tail
	sched := display.NewScheduler(r, display.SchedulerOptions{Clock: p.Clock, AfterVersion: at.version, Stream: at.stream, Hold: hold})
	ps.display = sched
	ps.mu.Unlock()
	if old != nil {
		old.Close()
	}
	ok := c.Go(func() {
		if !c.WaitReady() {
			return
		}
		for {
			f, err := sched.Next(c.Context())
			if err != nil {
				return
			}
			if err := c.Notify("display/state", f); err != nil {
				return
			}
		}
	})
	if !ok {
		sched.Close()
	}
}

// DisplaySnapshot returns the client's display state under a new version
// (display/snapshot); frames not yet sent are dropped, as the snapshot holds
// them. A scheduler replaced meanwhile is not asked: its successor is.
func DisplaySnapshot(c *rpc.Client) (display.Snapshot, error) {
	ps := pushOf(c)
	ps.mu.Lock()
	sched := ps.display
	ps.mu.Unlock()
	if sched == nil {
		return display.Snapshot{}, &rpc.Error{Code: rpc.CodeInternalError, Message: "no display state is attached to this connection"}
	}
	if snap, ok := sched.TrySnapshot(); ok {
		return snap, nil
	}
	// Replaced meanwhile (a session switch): the successor answers.
	ps.mu.Lock()
	next := ps.display
	ps.mu.Unlock()
	if next != nil && next != sched {
		if snap, ok := next.TrySnapshot(); ok {
			return snap, nil
		}
	}
	return display.Snapshot{}, &rpc.Error{Code: rpc.CodeInternalError, Message: "the display of this connection is closed"}
}

func snapshotHandler(_ context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
	return DisplaySnapshot(c)
}

// AttachEvents forwards every event of src as a harness/event notification
// {"event": …}, in order, if the client declared capabilities.harnessEvents
// (call it after initialize, e.g. from OnInitialize); otherwise it does
// nothing. The events wait in the connection's outbox (package outbox):
// the end of a stream's text that could be the start of a secret waits
// there, per stream, until its stream's next delta or end; no event is
// dropped for a slow client, and once it is outbox.DefaultMergeAt items
// behind a message_update merges into the queued delta of its own stream
// (the merged event carries the seq of its last delta), and a job's output
// into the queued output of the same job. A later call replaces the
// earlier subscription.
func AttachEvents(c *rpc.Client, src EventSource) {
	if !c.Capabilities().HarnessEvents {
		return
	}
	hold, _ := c.Server().Masker().(outbox.Holder)
	out := outbox.New(outbox.Options{Hold: hold})
	unsub := src.Subscribe(func(ev harness.Event) { queueEvent(out, ev) })
	ps := pushOf(c)
	ps.mu.Lock()
	old := ps.unsub
	ps.unsub = unsub
	ps.mu.Unlock()
	if old != nil {
		old()
	}
	ok := c.Go(func() {
		if !c.WaitReady() {
			return
		}
		for {
			items, _, open := out.Take(c.Context())
			if !open {
				return
			}
			for _, it := range items {
				if err := c.Notify(it.Method, it.Payload()); err != nil {
					return
				}
			}
		}
	})
	if !ok {
		unsub()
	}
}

// queueEvent puts ev in out: a job's output as the job kind (merged per
// job for a slow client), everything else as an event.
func queueEvent(out *outbox.Outbox, ev harness.Event) {
	pe := toEvent(ev)
	if ev.Type != harness.EvJobOutput || ev.Job == nil {
		out.Event(pe)
		return
	}
	out.Job("harness/event", ev.Job.ID, protocol.EventParams{Event: pe}, func(prev any) any {
		p, ok := prev.(protocol.EventParams)
		if !ok {
			return prev
		}
		p.Event.Output += pe.Output
		p.Event.Seq = pe.Seq
		return p
	})
}
