package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// Proxy serves the requests and notifications of a connection attached to
// a session another process owns (rpc.Options.Route).
type Proxy interface {
	// Handler serves method for the connection (notification: it was sent
	// as one).
	Handler(method string, notification bool) rpc.HandlerFunc
	// OwnerPID is the owner's process id.
	OwnerPID() int
}

// attachWait bounds how long an opener waits for the owner of a locked
// session to answer on its socket.
const attachWait = 5 * time.Second

// link is one editor connection attached to another process's session. It
// outlives one upstream: when the owner leaves, the link takes the session
// over or attaches to the new owner.
type link struct {
	a    *agent
	c    *rpc.Client
	p    rpc.InitializeParams // the editor's initialize, replayed to each owner
	path string

	mu        sync.Mutex
	up        *upstream     // nil while switching owners, or once this process owns the session
	switching chan struct{} // closed when a switch ends
	owned     bool          // this process took the session over: the local handlers serve
	failed    error         // the switch failed
	closed    bool
	version   int64  // the last display/state version forwarded to the editor
	stream    string // and its display stream
}

func (a *agent) proxyOf(c *rpc.Client) Proxy {
	a.att.mu.Lock()
	defer a.att.mu.Unlock()
	if l := a.att.links[c]; l != nil {
		return l
	}
	return nil
}

// route serves an attached connection's methods through its Proxy
// (rpc.Options.Route).
func (a *agent) route(c *rpc.Client, method string, notification bool) (rpc.HandlerFunc, bool) {
	if p := a.proxyOf(c); p != nil {
		return p.Handler(method, notification), true
	}
	return nil, false
}

// result completes the initialize result (rpc.Options.OnResult): display
// frames carry diffs, and an attached connection is marked so.
func (a *agent) result(c *rpc.Client, res *rpc.InitializeResult) {
	res.Capabilities.DisplayState.Diffs = true
	if p := a.proxyOf(c); p != nil {
		res.Attached, res.OwnerPID = true, p.OwnerPID()
	}
}

func (l *link) OwnerPID() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up != nil {
		return l.up.ownerPID
	}
	if l.owned {
		return os.Getpid()
	}
	return 0
}

func (l *link) Handler(method string, notification bool) rpc.HandlerFunc {
	return func(ctx context.Context, c *rpc.Client, params json.RawMessage) (any, error) {
		up, err := l.current(ctx)
		if err != nil {
			return nil, err
		}
		if !notification && (method == "session/open" || method == "session/new") {
			return l.switchSession(ctx, up, method, params)
		}
		if up == nil { // this process owns the session now
			h := c.Server().Handler(method)
			if h == nil {
				return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found: " + method}
			}
			return h(ctx, c, params)
		}
		if notification {
			return nil, up.notify(ctx, method, params)
		}
		return up.call(ctx, method, params)
	}
}

// switchSession serves session/open and session/new of an attached
// connection: opening the attached session again answers as the first
// open did; another session detaches the connection from the owner and
// opens it here (or attaches to its owner).
func (l *link) switchSession(ctx context.Context, up *upstream, method string, params json.RawMessage) (any, error) {
	c := l.c
	if up != nil && method == "session/open" {
		var p protocol.SessionOpenParams
		if json.Unmarshal(params, &p) == nil && p.Path != "" && attach.SameFile(p.Path, l.path) {
			return l.attachedResult(ctx, up)
		}
	}
	h := l.a.harness(c)
	if h == nil {
		return nil, &rpc.Error{Code: rpc.CodeServerNotInitialized, Message: "server not initialized"}
	}
	if up != nil {
		l.a.closeProxy(c)
		l.a.reconnectLocal(c, h)
	}
	return c.Server().Handler(method)(ctx, c, params)
}

// attachedResult is the result of a session/open that attached.
func (l *link) attachedResult(ctx context.Context, up *upstream) (any, error) {
	var st struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	res, err := up.call(ctx, "session/state", nil)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(res.(json.RawMessage), &st); err != nil {
		return nil, &rpc.Error{Code: rpc.CodeInternalError, Message: "session/state of the owner: " + err.Error()}
	}
	return sessionResult{SessionID: st.SessionID, Path: st.Path, Attached: true, OwnerPID: up.ownerPID}, nil
}

// current is the upstream to forward to, waiting out a change of owner;
// nil once this process owns the session.
func (l *link) current(ctx context.Context) (*upstream, error) {
	for {
		l.mu.Lock()
		up, owned, sw, failed := l.up, l.owned, l.switching, l.failed
		l.mu.Unlock()
		switch {
		case failed != nil:
			return nil, failed
		case up != nil || owned:
			return up, nil
		case sw == nil:
			return nil, rpc.ErrClosed
		}
		select {
		case <-sw:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// attachTo connects c to the owner of the locked session at path. When the
// owner does not answer and the lock turns out free (a stale socket), h
// opens the session instead: owned is true and no link is made.
func (a *agent) attachTo(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, h *harness.Harness, path string) (l *link, owned bool, err error) {
	deadline := time.Now().Add(attachWait)
	l = &link{a: a, c: c, p: p, path: path}
	// The editor's display continues: the owner's frames follow the local
	// ones in the same stream.
	at := a.takeDisplayAfter(c)
	l.stream, l.version = at.stream, at.version
	for {
		u, err := dialOwner(ctx, l)
		if err == nil {
			l.up = u
			a.att.mu.Lock()
			a.att.links[c] = l
			a.att.mu.Unlock()
			u.start()
			return l, false, nil
		}
		var refused *rpc.Error
		if errors.As(err, &refused) && refused.Code != rpc.CodeLocked {
			return nil, false, refused
		}
		// Nobody answers: the owner died (its socket is stale) or has
		// just taken the lock and is not listening yet.
		_, oerr := h.OpenSession(ctx, path)
		if oerr == nil {
			return nil, true, nil
		}
		locked := lockedBy(oerr)
		if locked == nil {
			return nil, false, oerr
		}
		if time.Now().After(deadline) {
			e := rpc.ErrLocked(locked.PID)
			e.Message = fmt.Sprintf("session %s is locked by pid %d, which does not answer on its socket: %v", path, locked.PID, err)
			return nil, false, e
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return nil, false, err
		}
	}
}

// attachAtInit attaches a connection whose initializationOptions.session
// named a locked session. The local harness stays, idle, for a takeover.
func (a *agent) attachAtInit(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, h *harness.Harness, locked *session.LockedError) error {
	_, owned, err := a.attachTo(ctx, c, p, h, locked.Path)
	if err != nil {
		if cerr := h.Close(); cerr != nil {
			a.logWarn("closing harness", cerr)
		}
		return mapErr(err)
	}
	if owned {
		return a.connect(ctx, c, p, h, false)
	}
	wctx, cancel := context.WithCancel(context.Background())
	a.mu.Lock()
	a.conns[c] = &attachment{h: h, unsub: func() {}, cancel: cancel}
	a.mu.Unlock()
	if p.ProcessID > 0 {
		go rpc.WatchParent(wctx, p.ProcessID, func() {
			c.Log(slogWarn, "parent process is gone; exiting")
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
	l, owned, err := a.attachTo(ctx, c, c.Params(), h, locked.Path)
	if err != nil || owned {
		a.reconnectLocal(c, h)
		info := h.SessionInfo()
		return sessionResult{SessionID: info.ID, Path: info.Path}, mapErr(err)
	}
	a.releaseLocal(h)
	return l.attachedResult(ctx, l.up)
}

// releaseLocal closes the session h had open before its connection
// attached to another process's (its lock and socket released), unless
// other processes are attached to it here: then it stays open and served
// for them, and is handed over when this connection ends.
func (a *agent) releaseLocal(h *harness.Harness) {
	a.att.mu.Lock()
	hb := a.att.hubs[h]
	a.att.mu.Unlock()
	if hb != nil {
		hb.mu.Lock()
		others := len(hb.socks)
		hb.mu.Unlock()
		if others > 0 {
			return
		}
		hb.release()
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
	a.setDisplayAfter(c, detachDisplay(c))
	if at == nil {
		return
	}
	a.att.mu.Lock()
	hb := a.att.hubs[at.h]
	a.att.mu.Unlock()
	if hb != nil {
		hb.mu.Lock()
		for i, x := range hb.clients {
			if x == c {
				hb.clients = append(hb.clients[:i:i], hb.clients[i+1:]...)
				break
			}
		}
		hb.mu.Unlock()
	}
}

// reconnectLocal feeds h to c again (an attach that did not happen).
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

// detachDisplay stops the connection's display and event pushes, and
// returns the display stream and version the editor was sent last.
func detachDisplay(c *rpc.Client) displayAt { return pushOf(c).retire() }

// closeProxy ends c's link when c disconnects.
func (a *agent) closeProxy(c *rpc.Client) {
	a.att.mu.Lock()
	l := a.att.links[c]
	delete(a.att.links, c)
	a.att.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	up := l.up
	l.mu.Unlock()
	if up != nil {
		up.close()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dialOwner connects to the socket of l's session, exchanges versions and
// initializes the connection with the editor's capabilities. A refusal by
// the owner is an *Error.
func dialOwner(ctx context.Context, l *link) (*upstream, error) {
	sock, err := session.SocketPath(l.path)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	res, br, err := attach.Handshake(nc, attachParams{ProtocolVersion: attach.ProtocolVersion, PID: os.Getpid(), Path: l.path, ClientInfo: l.p.ClientInfo})
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	u := newUpstream(l, nc, br, res.PID)
	ip := l.p
	ip.ProcessID = 0
	ip.InitializationOptions = nil
	l.mu.Lock()
	if l.version > 0 {
		ip.InitializationOptions, _ = json.Marshal(rpc.InitOptions{DisplayVersion: l.version, DisplayStream: l.stream})
	}
	l.mu.Unlock()
	ip.Capabilities.HarnessEvents = true // the link follows the owner's runs
	ictx, icancel := context.WithTimeout(ctx, 10*time.Second)
	defer icancel()
	if _, err := u.conn.Call(ictx, "initialize", ip, nil); err != nil {
		u.close()
		return nil, rpc.FromWire(err)
	}
	if err := u.conn.Notify(ictx, "initialized", struct{}{}); err != nil {
		u.close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return u, nil
}
