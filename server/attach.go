package server

import (
	"context"
	"errors"
	"sync"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// Attaching (docs/sessions.md, "Several clients on one session"). The
// process that holds a session's write lock is its owner: it serves the
// session on a unix socket (an attach.Hub). Another pi-lsp asked to open
// the session connects there and proxies its client to the owner (an
// attach.Link); the owner serves that connection as one more client of
// the same harness, with its own display scheduler. Only the owner writes.
// This file is the host side of package attach: it owns the map from
// harnesses to hubs and from connections to links, and it is the hub's
// harness UI (attach_ui.go) and the link's attach.Host (attach_host.go).

// attachState is what one process's agent knows about attaching: the hubs
// of the harnesses it owns a session of, and the links of its connections
// attached to another process.
type attachState struct {
	mu    sync.Mutex
	hubs  map[*harness.Harness]*hub
	links map[*rpc.Client]*attach.Link
	after map[*rpc.Client]displayAt // display streams and versions a connection's next scheduler continues
}

func newAttachState() *attachState {
	return &attachState{hubs: map[*harness.Harness]*hub{}, links: map[*rpc.Client]*attach.Link{}, after: map[*rpc.Client]displayAt{}}
}

// hub is an attach.Hub with the harness it serves: the harness's UI (every
// question goes to each client that declared it answers it).
type hub struct {
	*attach.Hub
	h     *harness.Harness
	unsub func()
}

// hubSession is the harness as an attach.Session.
type hubSession struct{ *harness.Harness }

func (s hubSession) SessionPath() string { return s.SessionInfo().Path }

// takeDisplayAfter is the display stream and version c's next scheduler
// continues after (zero: the connection's own), once.
func (a *agent) takeDisplayAfter(c *rpc.Client) displayAt {
	a.att.mu.Lock()
	defer a.att.mu.Unlock()
	v := a.att.after[c]
	delete(a.att.after, c)
	return v
}

func (a *agent) setDisplayAfter(c *rpc.Client, at displayAt) {
	if at.version <= 0 || at.stream == "" {
		return
	}
	a.att.mu.Lock()
	a.att.after[c] = at
	a.att.mu.Unlock()
}

// hubOf is h's hub (nil when h serves no session to others).
func (a *agent) hubOf(h *harness.Harness) *hub {
	a.att.mu.Lock()
	defer a.att.mu.Unlock()
	return a.att.hubs[h]
}

// joinHub makes c a client of h's hub, creating the hub (and its socket)
// for the owner's own connection.
func (a *agent) joinHub(c *rpc.Client, h *harness.Harness) {
	a.att.mu.Lock()
	hb := a.att.hubs[h]
	created := hb == nil
	if created {
		hb = &hub{Hub: attach.NewHub(c.Server(), hubSession{h}, a.opts.Logger), h: h}
		a.att.hubs[h] = hb
	}
	a.att.mu.Unlock()
	hb.Join(c)
	h.SetUI(hb)
	if created {
		hb.unsub = h.Subscribe(func(ev harness.Event) {
			if ev.Type == harness.EvSession {
				go hb.Relisten()
			}
		})
		hb.Relisten()
	}
}

// leaveHub removes c from its hub. keep is true when the harness stays (c
// was attached over the socket, or other clients remain on a harness that
// is not c's own). For the owner's own connection the hub closes: the
// attached processes are told who takes over, and after (run once the
// harness is closed and the lock released) ends their connections.
func (a *agent) leaveHub(c *rpc.Client, at *attachment) (keep bool, after func()) {
	a.att.mu.Lock()
	hb := a.att.hubs[at.h]
	if hb != nil && !at.shared {
		delete(a.att.hubs, at.h)
	}
	a.att.mu.Unlock()
	if hb == nil {
		return at.shared, func() {}
	}
	if at.shared {
		hb.Leave(c, false)
		return true, func() {}
	}
	if hb.unsub != nil {
		hb.unsub()
	}
	return false, hb.Leave(c, true)
}

// beforeShutdown records the hand-over state of the owner's own connection
// before shutdown aborts its run (the queue would be gone after).
func (a *agent) beforeShutdown(c *rpc.Client) {
	if h := a.harness(c); h != nil {
		if hb := a.hubOf(h); hb != nil {
			hb.BeforeShutdown(c)
		}
	}
}

// initShared is initialize of a connection accepted on a hub's socket: it
// shares the owner's harness (its session, queue and settings) and gets its
// own display.
func (a *agent) initShared(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, sc *attach.Conn) error {
	var hb *hub
	a.att.mu.Lock()
	for _, x := range a.att.hubs {
		if x.Hub == sc.Hub() {
			hb = x
		}
	}
	a.att.mu.Unlock()
	if hb == nil {
		return &rpc.Error{Code: rpc.CodeLocked, Message: "attach refused: the owner is leaving"}
	}
	if err := hb.Accept(c, sc); err != nil {
		return err
	}
	if opts, err := p.Options(); err == nil {
		a.setDisplayAfter(c, displayAt{stream: opts.DisplayStream, version: opts.DisplayVersion})
	}
	return a.connect(ctx, c, p, hb.h, true)
}

func (a *agent) logWarn(msg string, err error) {
	if a.opts.Logger != nil {
		a.opts.Logger.Warn(msg, "err", err)
	}
}

// lockedBy is the lock error err carries, or nil.
func lockedBy(err error) *session.LockedError {
	var locked *session.LockedError
	if errors.As(err, &locked) {
		return locked
	}
	return nil
}

// continueRecent opens the newest session of h's cwd, or starts one. A
// newest session another process owns is returned as its lock error: the
// caller attaches to it.
func (a *agent) continueRecent(ctx context.Context, h *harness.Harness) error {
	root := a.opts.SessionsRoot
	if root == "" {
		root = session.DefaultRoot()
	}
	list, err := session.List(ctx, root, h.Cwd())
	if err == nil && len(list) > 0 {
		_, err := h.OpenSession(ctx, list[0].Path)
		return err
	}
	_, err = h.NewSession(ctx, "")
	return err
}
