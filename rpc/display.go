package rpc

import (
	"context"
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/outbox"
)

// EventSource is an ordered stream of harness events; *harness.Harness
// satisfies it. fn runs synchronously on the emitting goroutine, in order,
// and must not block; the returned func unsubscribes.
type EventSource interface {
	Subscribe(fn func(harness.Event)) (unsubscribe func())
}

// AttachDisplay gives the client its own display.Scheduler on r (one
// Reducer per harness, fed by harness.Attach with r.Apply) and pushes its
// frames as display/state notifications once the client has the initialize
// result: first the full state, then versioned ops. A later call replaces
// the earlier scheduler. May be called from OnInitialize.
func (c *Client) AttachDisplay(r *display.Reducer) { c.attachDisplay(r, 0) }

// attachDisplay is AttachDisplay with versions continuing after after.
func (c *Client) attachDisplay(r *display.Reducer, after int64) {
	hold, _ := c.srv.opts.Masker.(display.Holder) // the scheduler holds each item's unsafe tail
	sched := display.NewScheduler(r, display.SchedulerOptions{Clock: c.srv.opts.DisplayClock, AfterVersion: after, Hold: hold})
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
// nothing. The events wait in the connection's outbox (package outbox):
// the end of a stream's text that could be the start of a secret waits
// there, per stream, until its stream's next delta or end; no event is
// dropped for a slow client, and once it is outbox.DefaultMergeAt items
// behind a message_update merges into the queued delta of its own stream
// (the merged event carries the seq of its last delta). A later call
// replaces the earlier subscription.
func (c *Client) AttachEvents(src EventSource) {
	if !c.Capabilities().HarnessEvents {
		return
	}
	hold, _ := c.srv.opts.Masker.(outbox.Holder)
	out := outbox.New(outbox.Options{Hold: hold})
	unsub := src.Subscribe(func(ev harness.Event) { out.Event(toEvent(ev)) })
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
			items, _, open := out.Take(c.ctx)
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
