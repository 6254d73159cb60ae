package server

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// Attaching (docs/sessions.md, "Several clients on one session"). The
// process that holds a session's write lock is its owner: it serves the
// session on a unix socket named by the file's device and inode. Another
// pi-lsp asked to open the session connects there and proxies its client
// to the owner; the owner serves that connection as one more client of the
// same harness, with its own display scheduler. Only the owner writes.

// Internal methods between two pi-lsp processes; never sent to an editor.
const (
	methodHandover = rpc.MethodHandover // the owner is leaving: who takes over, and the state
)

// The socket's own messages are protocol's (AttachParams, AttachResult,
// HandoverParams).
type (
	attachParams   = protocol.AttachParams
	attachResult   = protocol.AttachResult
	handoverParams = protocol.HandoverParams
)

// attachState is what one process's agent knows about attaching: the hubs
// of the harnesses it owns a session of, and the links of its connections
// attached to another process.
type attachState struct {
	mu    sync.Mutex
	hubs  map[*harness.Harness]*hub
	links map[*rpc.Client]*link
	after map[*rpc.Client]displayAt // display streams and versions a connection's next scheduler continues
}

func newAttachState() *attachState {
	return &attachState{hubs: map[*harness.Harness]*hub{}, links: map[*rpc.Client]*link{}, after: map[*rpc.Client]displayAt{}}
}

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

// hub is one owned harness and every connection that shares it: the
// process's own client first, then the attached ones. It serves the
// harness's session on its socket and asks its questions of every client.
type hub struct {
	a   *agent
	srv *rpc.Server
	h   *harness.Harness

	ctx    context.Context // ends when the hub closes
	cancel context.CancelFunc

	mu      sync.Mutex
	clients []*rpc.Client
	socks   map[*rpc.Client]*sockConn
	leaving *handoverParams // captured at shutdown, before the run is aborted

	lmu   sync.Mutex // listening
	ln    net.Listener
	path  string // the session served
	unsub func()
}

// sockConn is one connection accepted on a hub's socket.
type sockConn struct {
	hub  *hub
	conn net.Conn
	pid  int // the attached process
	// follower: a terminal command that never takes the session over
	follower bool
}

type sockConnKey struct{}

// sockConnFrom is the socket connection a Serve context carries (nil for
// the process's own client).
func sockConnFrom(ctx context.Context) *sockConn {
	sc, _ := ctx.Value(sockConnKey{}).(*sockConn)
	return sc
}

// joinHub makes c a client of h's hub, creating the hub (and its socket)
// for the owner's own connection.
func (a *agent) joinHub(c *rpc.Client, h *harness.Harness, shared bool) {
	a.att.mu.Lock()
	hb := a.att.hubs[h]
	created := hb == nil
	if created {
		ctx, cancel := context.WithCancel(context.Background())
		hb = &hub{a: a, srv: c.Server(), h: h, ctx: ctx, cancel: cancel, socks: map[*rpc.Client]*sockConn{}}
		a.att.hubs[h] = hb
	}
	a.att.mu.Unlock()
	hb.mu.Lock()
	hb.clients = append(hb.clients, c)
	hb.mu.Unlock()
	h.SetUI(hb)
	if created {
		hb.unsub = h.Subscribe(func(ev harness.Event) {
			if ev.Type == harness.EvSession {
				go hb.relisten()
			}
		})
		hb.relisten()
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
	hb.mu.Lock()
	for i, x := range hb.clients {
		if x == c {
			hb.clients = append(hb.clients[:i:i], hb.clients[i+1:]...)
			break
		}
	}
	delete(hb.socks, c)
	socks := make([]*sockConn, 0, len(hb.socks))
	for _, sc := range hb.socks {
		socks = append(socks, sc)
	}
	hb.mu.Unlock()
	if at.shared {
		return true, func() {}
	}
	hb.stopListening()
	if hb.unsub != nil {
		hb.unsub()
	}
	if len(socks) > 0 {
		hb.handOver(socks)
	}
	return false, func() {
		for _, sc := range socks {
			_ = sc.conn.Close()
		}
		hb.cancel()
	}
}

// beforeShutdown records the hand-over state of the owner's own connection
// before shutdown aborts its run (the queue would be gone after).
func (a *agent) beforeShutdown(c *rpc.Client) {
	h := a.harness(c)
	if h == nil {
		return
	}
	a.att.mu.Lock()
	hb := a.att.hubs[h]
	a.att.mu.Unlock()
	if hb == nil || hb.owner() != c {
		return
	}
	st := hb.leavingState()
	hb.mu.Lock()
	hb.leaving = st
	hb.mu.Unlock()
}

// owner is the hub's own (first, not socket) client.
func (hb *hub) owner() *rpc.Client {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	for _, c := range hb.clients {
		if hb.socks[c] == nil {
			return c
		}
	}
	return nil
}

func (hb *hub) leavingState() *handoverParams {
	steer, follow := hb.h.Queue()
	return &handoverParams{Path: hb.h.SessionInfo().Path, Steering: steer, FollowUp: follow, Interrupted: hb.h.IsRunning()}
}

// handOver tells every attached process that the owner leaves: the first
// to have attached takes over with the queue; the others attach to it.
func (hb *hub) handOver(socks []*sockConn) {
	hb.mu.Lock()
	st := hb.leaving
	// The order of attaching: the first still connected succeeds.
	order := make([]*sockConn, 0, len(socks))
	for _, c := range hb.clients {
		if sc := hb.socks[c]; sc != nil && !sc.follower {
			order = append(order, sc)
		}
	}
	hb.mu.Unlock()
	if st == nil {
		st = hb.leavingState()
	}
	var succ *rpc.Client
	hb.mu.Lock()
	if len(order) > 0 {
		st.Successor = order[0].pid
		for c, sc := range hb.socks {
			if sc == order[0] {
				succ = c
			}
		}
	}
	others := make([]*rpc.Client, 0, len(hb.socks))
	for c := range hb.socks {
		if c != succ {
			others = append(others, c)
		}
	}
	hb.mu.Unlock()
	if succ != nil {
		_ = succ.Notify(methodHandover, st)
	}
	// The others learn who takes over and whether a run was stopped: the
	// queue is the successor's.
	for _, c := range others {
		_ = c.Notify(methodHandover, handoverParams{Successor: st.Successor, Path: st.Path, Interrupted: st.Interrupted})
	}
}

// relisten serves the harness's current session on its socket, closing the
// socket of the session it served before.
func (hb *hub) relisten() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	if hb.ctx.Err() != nil {
		return
	}
	path := hb.h.SessionInfo().Path
	if path == hb.path {
		return
	}
	hb.stopListeningLocked()
	hb.path = path
	if path == "" {
		return
	}
	sock, err := session.SocketPath(path)
	if err != nil {
		hb.a.logWarn("attach: no socket for the session", err)
		return
	}
	// We hold the lock: a socket there was left by an owner that died.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		hb.a.logWarn("attach: removing a stale socket", err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		hb.a.logWarn("attach: listening", err)
		return
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		_ = ln.Close()
		hb.a.logWarn("attach: socket mode", err)
		return
	}
	hb.ln = ln
	go hb.accept(ln)
}

func (hb *hub) stopListening() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	hb.stopListeningLocked()
	hb.path = "\x00closed" // no session is served any more
}

// release stops serving the current session; the next session the
// harness opens is served again.
func (hb *hub) release() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	hb.stopListeningLocked()
	hb.path = ""
}

func (hb *hub) stopListeningLocked() {
	if hb.ln != nil {
		_ = hb.ln.Close() // removes the socket file
		hb.ln = nil
	}
}

// capable lists the clients that declared they answer method.
func (hb *hub) capable(method string) []*rpc.Client {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	var out []*rpc.Client
	for _, c := range hb.clients {
		if known, ok := rpc.Declared(c.Capabilities(), method); !known || ok {
			out = append(out, c)
		}
	}
	return out
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

// ownerNotice is the session/owner notification.
func ownerNotice(pid int, reason string, interrupted bool) protocol.OwnerParams {
	return protocol.OwnerParams{PID: pid, Reason: reason, Interrupted: interrupted}
}
