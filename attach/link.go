package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// Host is what a Link needs of the process it runs in (package server's
// agent, which holds each connection's local harness).
type Host interface {
	// OpenSession opens the session at path in c's local harness: nil when
	// this process holds it now, an error wrapping *session.LockedError
	// when another process does.
	OpenSession(ctx context.Context, c *rpc.Client, path string) error
	// TakeOver serves c from its local harness, which holds the session
	// now (t: why, the queue handed over, the display c was sent last).
	TakeOver(c *rpc.Client, t TakeOver)
	// Unlink ends c's link and serves c from its local harness again (a
	// session/open of another session); an error when c has no harness.
	Unlink(c *rpc.Client) error
}

// TakeOver is what a Link hands its host when this process becomes the
// session's owner.
type TakeOver struct {
	Reason      string                   // protocol.OwnerHandover or protocol.OwnerTakeover
	Interrupted bool                     // the old owner's run was stopped
	Was         int                      // the old owner's pid
	Handover    *protocol.HandoverParams // the queue handed over (nil after a takeover)
	Display     Display                  // the display stream and version the editor was sent last
	Init        rpc.InitializeParams     // the editor's initialize
}

// Display is a display stream and the last version of it an editor was
// sent: the next owner's frames continue after it.
type Display struct {
	Stream  string
	Version int64
}

// attachWait bounds how long an opener waits for the owner of a locked
// session to answer on its socket.
const attachWait = 5 * time.Second

// Link is one editor connection attached to another process's session.
// It outlives one upstream: when the owner leaves, the link takes the
// session over or attaches to the new owner.
type Link struct {
	host Host
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

// Attach connects c to the owner of the locked session at path; its
// display continues after at. When the owner does not answer and the lock
// turns out free (a stale socket), host opens the session instead: owned is
// true and no link is made. The link returned is not started: the host
// records it (to route c's methods through it), then calls Start.
func Attach(ctx context.Context, host Host, c *rpc.Client, p rpc.InitializeParams, path string, at Display) (l *Link, owned bool, err error) {
	deadline := time.Now().Add(attachWait)
	l = &Link{host: host, c: c, p: p, path: path, stream: at.Stream, version: at.Version}
	for {
		u, err := l.dial(ctx)
		if err == nil {
			l.up = u
			return l, false, nil
		}
		var refused *rpc.Error
		if errors.As(err, &refused) && refused.Code != rpc.CodeLocked {
			return nil, false, refused
		}
		// Nobody answers: the owner died (its socket is stale) or has
		// just taken the lock and is not listening yet.
		oerr := host.OpenSession(ctx, c, path)
		if oerr == nil {
			return nil, true, nil
		}
		var locked *session.LockedError
		if !errors.As(oerr, &locked) {
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

// Start forwards the owner's notifications to the editor and watches for
// the owner going away.
func (l *Link) Start() {
	l.mu.Lock()
	u := l.up
	l.mu.Unlock()
	if u != nil {
		u.start()
	}
}

// dial connects to the socket of l's session, exchanges versions and
// initializes the connection with the editor's capabilities. A refusal by
// the owner is an *rpc.Error (wrapped).
func (l *Link) dial(ctx context.Context) (*upstream, error) {
	ip := l.p
	ip.ProcessID = 0
	ip.InitializationOptions = nil
	l.mu.Lock()
	if l.version > 0 {
		ip.InitializationOptions, _ = json.Marshal(rpc.InitOptions{DisplayVersion: l.version, DisplayStream: l.stream})
	}
	l.mu.Unlock()
	ip.Capabilities.HarnessEvents = true // the link follows the owner's runs
	var u *upstream
	_, err := dial(ctx, l.path, protocol.AttachParams{ClientInfo: l.p.ClientInfo}, ip, l.c.Server().Logger(), func(w *wire) (context.Context, jsonrpc2.Handler) {
		u = newUpstream(l, w)
		return u.ctx, u.handle
	})
	if err != nil {
		if u != nil {
			u.cancel()
		}
		return nil, err
	}
	return u, nil
}

// OwnerPID is the owner's process id (this process's once it took the
// session over; 0 while switching).
func (l *Link) OwnerPID() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.up != nil {
		return l.up.w.ownerPID
	}
	if l.owned {
		return os.Getpid()
	}
	return 0
}

// Handler serves method for the attached connection (notification: it was
// sent as one): forwarded to the owner, or served locally once this
// process took the session over.
func (l *Link) Handler(method string, notification bool) rpc.HandlerFunc {
	return func(ctx context.Context, c *rpc.Client, params json.RawMessage) (any, error) {
		up, err := l.current(ctx)
		if err != nil {
			return nil, err
		}
		if !notification && (method == "session/open" || method == "session/new") {
			return l.switchSession(ctx, up, method, params)
		}
		if up == nil { // this process owns the session now
			return serveLocal(ctx, c, method, params)
		}
		if notification {
			return nil, up.notify(ctx, method, params)
		}
		return up.call(ctx, method, params)
	}
}

func serveLocal(ctx context.Context, c *rpc.Client, method string, params json.RawMessage) (any, error) {
	h := c.Server().Handler(method)
	if h == nil {
		return nil, &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found: " + method}
	}
	return h(ctx, c, params)
}

// switchSession serves session/open and session/new of an attached
// connection: opening the attached session again answers as the first
// open did; another session detaches the connection from the owner and
// opens it here (or attaches to its owner).
func (l *Link) switchSession(ctx context.Context, up *upstream, method string, params json.RawMessage) (any, error) {
	if up != nil && method == "session/open" {
		var p protocol.SessionOpenParams
		if json.Unmarshal(params, &p) == nil && p.Path != "" && SameFile(p.Path, l.path) {
			return l.attachedResult(ctx, up)
		}
	}
	if up != nil {
		if err := l.host.Unlink(l.c); err != nil {
			return nil, err
		}
	}
	return serveLocal(ctx, l.c, method, params)
}

// AttachedResult is the result of a session/open that attached.
func (l *Link) AttachedResult(ctx context.Context) (protocol.SessionResult, error) {
	up, err := l.current(ctx)
	if err != nil {
		return protocol.SessionResult{}, err
	}
	if up == nil {
		return protocol.SessionResult{}, &rpc.Error{Code: rpc.CodeInternalError, Message: "attach: this process owns the session now"}
	}
	return l.attachedResult(ctx, up)
}

func (l *Link) attachedResult(ctx context.Context, up *upstream) (protocol.SessionResult, error) {
	res, err := up.call(ctx, "session/state", nil)
	if err != nil {
		return protocol.SessionResult{}, err
	}
	var st protocol.SessionResult // the sessionId and path of session/state
	if err := json.Unmarshal(res.(json.RawMessage), &st); err != nil {
		return protocol.SessionResult{}, &rpc.Error{Code: rpc.CodeInternalError, Message: "session/state of the owner: " + err.Error()}
	}
	return protocol.SessionResult{SessionID: st.SessionID, Path: st.Path, Attached: true, OwnerPID: up.w.ownerPID}, nil
}

// current is the upstream to forward to, waiting out a change of owner;
// nil once this process owns the session.
func (l *Link) current(ctx context.Context) (*upstream, error) {
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

// Close ends the link (its connection to the owner) when the editor
// disconnects or leaves the session.
func (l *Link) Close() {
	l.mu.Lock()
	l.closed = true
	up := l.up
	l.mu.Unlock()
	if up != nil {
		up.close()
	}
}

// setVersion records the version of a display/state frame the editor was
// sent: the next owner's frames continue after it.
func (l *Link) setVersion(v int64) {
	l.mu.Lock()
	l.version = v
	l.mu.Unlock()
}

// setStream records the display stream of the owner's frames: the next
// owner's frames continue in it.
func (l *Link) setStream(s string) {
	if s == "" {
		return
	}
	l.mu.Lock()
	l.stream = s
	l.mu.Unlock()
}

// fail ends the link: its requests answer err from now on.
func (l *Link) fail(err error) {
	l.mu.Lock()
	l.failed = &rpc.Error{Code: rpc.CodeInternalError, Message: err.Error()}
	l.mu.Unlock()
	l.c.Log(slog.LevelError, err.Error())
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
