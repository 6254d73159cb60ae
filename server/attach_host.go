package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// The connections attached to a session another process owns: each has an
// attach.Link, which serves its methods (rpc.Options.Route); linkHost is
// what the link asks of this process.

func (a *agent) linkOf(c *rpc.Client) *attach.Link {
	a.att.mu.Lock()
	defer a.att.mu.Unlock()
	return a.att.links[c]
}

// route serves an attached connection's methods through its link
// (rpc.Options.Route).
func (a *agent) route(c *rpc.Client, method string, notification bool) (rpc.HandlerFunc, bool) {
	if l := a.linkOf(c); l != nil {
		return l.Handler(method, notification), true
	}
	return nil, false
}

// result completes the initialize result (rpc.Options.OnResult): display
// frames carry diffs, and an attached connection is marked so.
func (a *agent) result(c *rpc.Client, res *rpc.InitializeResult) {
	res.Capabilities.DisplayState.Diffs = true
	if l := a.linkOf(c); l != nil {
		res.Attached, res.OwnerPID = true, l.OwnerPID()
	}
}

// attachTo connects c to the owner of the locked session at path. When the
// owner does not answer and the lock turns out free (a stale socket), h
// opens the session instead: owned is true and no link is made.
func (a *agent) attachTo(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, path string) (l *attach.Link, owned bool, err error) {
	// The editor's display continues: the owner's frames follow the local
	// ones in the same stream.
	at := a.takeDisplayAfter(c)
	l, owned, err = attach.Attach(ctx, linkHost{a}, c, p, path, attach.Display{Stream: at.stream, Version: at.version})
	if l != nil {
		a.att.mu.Lock()
		a.att.links[c] = l
		a.att.mu.Unlock()
		l.Start()
	}
	return l, owned, err
}

// attachAtInit attaches a connection whose initializationOptions.session
// named a locked session. The local harness stays, idle, for a takeover.
func (a *agent) attachAtInit(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, h *harness.Harness, locked *session.LockedError) error {
	// The link's host finds the harness through the connection.
	wctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	a.conns[c] = &attachment{h: h, unsub: func() {}, cancel: cancel}
	a.mu.Unlock()
	_, owned, err := a.attachTo(ctx, c, p, locked.Path)
	if err != nil || owned {
		cancel()
		a.mu.Lock()
		delete(a.conns, c)
		a.mu.Unlock()
	}
	if err != nil {
		if cerr := h.Close(); cerr != nil {
			a.logWarn("closing harness", cerr)
		}
		return mapErr(err)
	}
	if owned {
		return a.connect(ctx, c, p, h, false)
	}
	if p.ProcessID > 0 {
		go rpc.WatchParent(wctx, p.ProcessID, func() {
			c.Log(slog.LevelWarn, "parent process is gone; exiting")
			c.Close()
		})
	}
	return nil
}

// sessionOpen is session/open: a session another process owns is attached
// to instead of failing.
func (a *agent) sessionOpen(ctx context.Context, c *rpc.Client, raw json.RawMessage) (any, error) {
	h, err := a.need(c)
	if err != nil {
		return nil, err
	}
	p, err := rpc.Params[protocol.SessionOpenParams](raw)
	if err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, rpc.ErrInvalidParams(`"path" is required`)
	}
	info, err := h.OpenSession(ctx, p.Path)
	locked := lockedBy(err)
	if locked == nil {
		return sessionResult{SessionID: info.ID, Path: info.Path}, mapErr(err)
	}
	a.detachLocal(c)
	l, owned, err := a.attachTo(ctx, c, c.Params(), locked.Path)
	if err != nil || owned {
		a.reconnectLocal(c, h)
		info := h.SessionInfo()
		return sessionResult{SessionID: info.ID, Path: info.Path}, mapErr(err)
	}
	a.releaseLocal(h)
	return l.AttachedResult(ctx)
}

// releaseLocal closes the session h had open before its connection
// attached to another process's (its lock and socket released), unless
// other processes are attached to it here: then it stays open and served
// for them, and is handed over when this connection ends.
func (a *agent) releaseLocal(h *harness.Harness) {
	if hb := a.hubOf(h); hb != nil {
		if hb.Attached() > 0 {
			return
		}
		hb.Release()
	}
	if err := h.CloseSession(); err != nil {
		a.logWarn("attach: closing the session left behind", err)
	}
}

// detachLocal stops feeding the local harness's display and events to c:
// the owner's replace them.
func (a *agent) detachLocal(c *rpc.Client) {
	a.mu.Lock()
	at := a.conns[c]
	var unsub func()
	if at != nil {
		unsub, at.unsub = at.unsub, func() {}
	}
	a.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	a.setDisplayAfter(c, pushOf(c).retire())
	if at == nil {
		return
	}
	if hb := a.hubOf(at.h); hb != nil {
		hb.Remove(c)
	}
}

// reconnectLocal feeds h to c again (an attach that did not happen, or a
// link that ended).
func (a *agent) reconnectLocal(c *rpc.Client, h *harness.Harness) {
	a.mu.Lock()
	at := a.conns[c]
	a.mu.Unlock()
	if at != nil {
		at.cancel()
	}
	if err := a.connect(c.Context(), c, c.Params(), h, false); err != nil {
		a.logWarn("reconnecting the local harness", err)
	}
}

// closeProxy ends c's link when c disconnects.
func (a *agent) closeProxy(c *rpc.Client) {
	a.att.mu.Lock()
	l := a.att.links[c]
	delete(a.att.links, c)
	a.att.mu.Unlock()
	if l != nil {
		l.Close()
	}
}

// linkHost is the agent as an attach.Host.
type linkHost struct{ a *agent }

var _ attach.Host = linkHost{}

func (lh linkHost) OpenSession(ctx context.Context, c *rpc.Client, path string) error {
	h, err := lh.a.need(c)
	if err != nil {
		return err
	}
	_, err = h.OpenSession(ctx, path)
	return err
}

func (lh linkHost) Unlink(c *rpc.Client) error {
	h, err := lh.a.need(c)
	if err != nil {
		return err
	}
	lh.a.closeProxy(c)
	lh.a.reconnectLocal(c, h)
	return nil
}

// TakeOver makes this process the session's owner: c is fed from the
// local harness, which now holds the lock and serves the socket, and the
// queue handed over is delivered.
func (lh linkHost) TakeOver(c *rpc.Client, t attach.TakeOver) {
	a := lh.a
	a.mu.Lock()
	at := a.conns[c]
	a.mu.Unlock()
	if at == nil {
		return
	}
	at.cancel()
	h := at.h
	a.att.mu.Lock()
	delete(a.att.links, c)
	a.att.mu.Unlock()
	a.setDisplayAfter(c, displayAt{stream: t.Display.Stream, version: t.Display.Version})
	if err := a.connect(c.Context(), c, t.Init, h, false); err != nil {
		a.logWarn("taking the session over", err)
	}
	_ = c.Notify("session/owner", protocol.OwnerParams{PID: os.Getpid(), Reason: t.Reason, Interrupted: t.Interrupted})
	if t.Interrupted {
		// A notice item in every client's display (and window/logMessage),
		// kept for the clients that attach later.
		h.Notice(attach.InterruptedNotice(t.Was, t.Reason))
	}
	if t.Handover == nil {
		return
	}
	// The queue: the first message starts a run, the others follow it.
	for _, text := range append(append([]string{}, t.Handover.Steering...), t.Handover.FollowUp...) {
		if _, err := h.Prompt(context.WithoutCancel(c.Context()), text, harness.PromptOptions{StreamingBehavior: harness.DeliveryFollowUp}); err != nil {
			a.logWarn("delivering a queued message after the hand-over", err)
		}
	}
}
