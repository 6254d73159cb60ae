package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
)

// EventSource is an ordered stream of harness events; *harness.Harness
// satisfies it. fn runs synchronously on the emitting goroutine, in order,
// and must not block; the returned func unsubscribes.
type EventSource interface {
	Subscribe(fn func(harness.Event)) (unsubscribe func())
}

// maxQueuedEvents bounds the harness/event backlog of a slow client.
const maxQueuedEvents = 4096

// AttachDisplay gives the client its own display.Scheduler on r (one
// Reducer per harness, fed by harness.Subscribe(r.Apply)) and pushes its
// frames as display/state notifications once the client has the initialize
// result: first the full state, then versioned ops. A later call replaces
// the earlier scheduler. May be called from OnInitialize.
func (c *Client) AttachDisplay(r *display.Reducer) { c.attachDisplay(r, 0) }

// attachDisplay is AttachDisplay with versions continuing after after.
func (c *Client) attachDisplay(r *display.Reducer, after int64) {
	sched := display.NewScheduler(r, display.SchedulerOptions{Clock: c.srv.opts.DisplayClock, AfterVersion: after})
	c.mu.Lock()
	old := c.display
	c.display = sched
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	ok := c.spawn(func() {
		if !c.waitReady() {
			return
		}
		for {
			f, err := sched.Next(c.ctx)
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
// them.
func (c *Client) DisplaySnapshot() (display.Snapshot, error) {
	c.mu.Lock()
	sched := c.display
	c.mu.Unlock()
	if sched == nil {
		return display.Snapshot{}, &Error{Code: CodeInternalError, Message: "no display state is attached to this connection"}
	}
	return sched.Snapshot(), nil
}

func snapshotHandler(_ context.Context, c *Client, _ json.RawMessage) (any, error) {
	return c.DisplaySnapshot()
}

// AttachEvents forwards every event of src as a harness/event notification
// {"event": …}, in order, if the client declared capabilities.harnessEvents
// (call it after initialize, e.g. from OnInitialize); otherwise it does
// nothing. A client that falls more than 4096 events behind loses the
// excess and is told so with window/logMessage. A later call replaces the
// earlier subscription.
func (c *Client) AttachEvents(src EventSource) {
	if !c.Capabilities().HarnessEvents {
		return
	}
	q := &eventQueue{wake: make(chan struct{}, 1)}
	unsub := src.Subscribe(q.add)
	c.mu.Lock()
	old := c.unsub
	c.unsub = unsub
	c.mu.Unlock()
	if old != nil {
		old()
	}
	ok := c.spawn(func() {
		if !c.waitReady() {
			return
		}
		for {
			evs, dropped, open := q.take(c.ctx)
			if !open {
				return
			}
			if dropped > 0 {
				c.Log(slog.LevelWarn, fmt.Sprintf("harness/event: %d events dropped, the client is not reading fast enough", dropped))
			}
			for _, ev := range evs {
				if err := c.Notify("harness/event", eventParams{Event: ev}); err != nil {
					return
				}
			}
		}
	})
	if !ok {
		unsub()
	}
}

type eventParams struct {
	Event harness.Event `json:"event"`
}

// eventQueue buffers events between the harness and a client's writer.
type eventQueue struct {
	mu      sync.Mutex
	evs     []harness.Event
	dropped int
	wake    chan struct{}
}

func (q *eventQueue) add(ev harness.Event) {
	q.mu.Lock()
	if len(q.evs) >= maxQueuedEvents {
		q.dropped++
	} else {
		q.evs = append(q.evs, ev)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take waits for events and returns them all; open is false when ctx ends.
func (q *eventQueue) take(ctx context.Context) (evs []harness.Event, dropped int, open bool) {
	for {
		q.mu.Lock()
		evs, dropped = q.evs, q.dropped
		q.evs, q.dropped = nil, 0
		q.mu.Unlock()
		if len(evs) > 0 || dropped > 0 {
			return evs, dropped, true
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil, 0, false
		}
	}
}

// waitReady blocks until the client has the initialize result; false if
// the connection ends first.
func (c *Client) waitReady() bool {
	select {
	case <-c.ready:
		return true
	case <-c.ctx.Done():
		return false
	}
}
