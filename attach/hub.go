package attach

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// MethodHandover is the owner's last word to each attached process: who
// takes over, and (to the successor) the queue.
const MethodHandover = rpc.MethodHandover

// Session is what a Hub needs of the session it serves (the host's
// harness): where it is, and what a successor takes over.
type Session interface {
	// SessionPath is the session open now ("" when none).
	SessionPath() string
	// Queue is the steering and follow-up messages waiting for a run.
	Queue() (steering, followUp []string)
	// IsRunning reports whether a run is going.
	IsRunning() bool
}

// Hub is one owned session and every connection that shares it: the
// process's own client first, then the ones attached over the session's
// socket. It serves the session on its socket (named by the file's device
// and inode), accepts attachers as more connections of srv, and hands the
// session over when the owner leaves. The host (package server) makes it
// the harness's UI; Capable and Owner say whom to ask.
type Hub struct {
	srv  *rpc.Server
	sess Session
	log  *slog.Logger

	ctx    context.Context // ends when the hub closes
	cancel context.CancelFunc

	mu      sync.Mutex
	clients []*rpc.Client
	socks   map[*rpc.Client]*Conn
	leaving *protocol.HandoverParams // captured at shutdown, before the run is aborted

	lmu  sync.Mutex // listening
	ln   net.Listener
	path string // the session served
}

// Conn is one connection accepted on a hub's socket.
type Conn struct {
	hub *Hub
	nc  net.Conn
	pid int // the attached process
	// follower: a terminal command that never takes the session over
	follower bool
}

// Hub is the hub that accepted the connection.
func (sc *Conn) Hub() *Hub { return sc.hub }

type connKey struct{}

// ConnFrom is the socket connection a Serve context carries (nil for the
// process's own client).
func ConnFrom(ctx context.Context) *Conn {
	sc, _ := ctx.Value(connKey{}).(*Conn)
	return sc
}

// NewHub returns the hub of s, served through srv. It listens once Relisten
// is called.
func NewHub(srv *rpc.Server, s Session, log *slog.Logger) *Hub {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{srv: srv, sess: s, log: log, ctx: ctx, cancel: cancel, socks: map[*rpc.Client]*Conn{}}
}

// Join adds c to the hub's clients (the owner's own connection first).
func (hb *Hub) Join(c *rpc.Client) {
	hb.mu.Lock()
	hb.clients = append(hb.clients, c)
	hb.mu.Unlock()
}

// Accept registers c, initialized on the socket connection sc, as one more
// client; an error when the owner is leaving.
func (hb *Hub) Accept(c *rpc.Client, sc *Conn) error {
	if hb.ctx.Err() != nil {
		return &rpc.Error{Code: rpc.CodeLocked, Message: "attach refused: the owner is leaving"}
	}
	hb.mu.Lock()
	hb.socks[c] = sc
	hb.mu.Unlock()
	return nil
}

// Remove takes c off the clients (it stays registered as a socket
// connection until Leave).
func (hb *Hub) Remove(c *rpc.Client) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	hb.removeLocked(c)
}

func (hb *Hub) removeLocked(c *rpc.Client) {
	for i, x := range hb.clients {
		if x == c {
			hb.clients = append(hb.clients[:i:i], hb.clients[i+1:]...)
			return
		}
	}
}

// Leave removes c. When c is the owner's own connection (owner true), the
// hub closes: it stops listening and tells the attached processes who
// takes over; after (to run once the harness is closed and its lock
// released) ends their connections.
func (hb *Hub) Leave(c *rpc.Client, owner bool) (after func()) {
	hb.mu.Lock()
	hb.removeLocked(c)
	delete(hb.socks, c)
	socks := make([]*Conn, 0, len(hb.socks))
	for _, sc := range hb.socks {
		socks = append(socks, sc)
	}
	hb.mu.Unlock()
	if !owner {
		return func() {}
	}
	hb.stopListening()
	if len(socks) > 0 {
		hb.handOver(socks)
	}
	return func() {
		for _, sc := range socks {
			_ = sc.nc.Close()
		}
		hb.cancel()
	}
}

// Attached is how many socket connections share the hub.
func (hb *Hub) Attached() int {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	return len(hb.socks)
}

// Owner is the hub's own (first, not socket) client.
func (hb *Hub) Owner() *rpc.Client {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	for _, c := range hb.clients {
		if hb.socks[c] == nil {
			return c
		}
	}
	return nil
}

// Capable lists the clients that declared they answer method.
func (hb *Hub) Capable(method string) []*rpc.Client {
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

// BeforeShutdown records the hand-over state when c, the owner's own
// connection, shuts down: before its run is aborted (the queue would be
// gone after).
func (hb *Hub) BeforeShutdown(c *rpc.Client) {
	if hb.Owner() != c {
		return
	}
	st := hb.leavingState()
	hb.mu.Lock()
	hb.leaving = st
	hb.mu.Unlock()
}

func (hb *Hub) leavingState() *protocol.HandoverParams {
	steer, follow := hb.sess.Queue()
	return &protocol.HandoverParams{Path: hb.sess.SessionPath(), Steering: steer, FollowUp: follow, Interrupted: hb.sess.IsRunning()}
}

// handOver tells every attached process that the owner leaves: the first
// to have attached takes over with the queue; the others attach to it.
func (hb *Hub) handOver(socks []*Conn) {
	hb.mu.Lock()
	st := hb.leaving
	// The order of attaching: the first still connected succeeds.
	order := make([]*Conn, 0, len(socks))
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
		_ = succ.Notify(MethodHandover, st)
	}
	// The others learn who takes over and whether a run was stopped: the
	// queue is the successor's.
	for _, c := range others {
		_ = c.Notify(MethodHandover, protocol.HandoverParams{Successor: st.Successor, Path: st.Path, Interrupted: st.Interrupted})
	}
}

// Relisten serves the session open now on its socket, closing the socket
// of the session it served before.
func (hb *Hub) Relisten() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	if hb.ctx.Err() != nil {
		return
	}
	path := hb.sess.SessionPath()
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
		hb.log.Warn("attach: no socket for the session", "err", err)
		return
	}
	// We hold the lock: a socket there was left by an owner that died.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		hb.log.Warn("attach: removing a stale socket", "err", err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		hb.log.Warn("attach: listening", "err", err)
		return
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		_ = ln.Close()
		hb.log.Warn("attach: socket mode", "err", err)
		return
	}
	hb.ln = ln
	go hb.accept(ln)
}

func (hb *Hub) stopListening() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	hb.stopListeningLocked()
	hb.path = "\x00closed" // no session is served any more
}

// Release stops serving the current session; the next session the
// harness opens is served again (Relisten).
func (hb *Hub) Release() {
	hb.lmu.Lock()
	defer hb.lmu.Unlock()
	hb.stopListeningLocked()
	hb.path = ""
}

func (hb *Hub) stopListeningLocked() {
	if hb.ln != nil {
		_ = hb.ln.Close() // removes the socket file
		hb.ln = nil
	}
}

// accept serves every connection of ln until it is closed.
func (hb *Hub) accept(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		go hb.serveConn(nc)
	}
}

// serveConn checks the peer, answers the version handshake and serves the
// native protocol on nc as one more client of the hub's session.
func (hb *Hub) serveConn(nc net.Conn) {
	defer nc.Close()
	if err := CheckPeerConn(nc); err != nil {
		hb.log.Warn("attach: connection refused", "err", err)
		return
	}
	_ = nc.SetDeadline(time.Now().Add(HandshakeTimeout))
	br := bufio.NewReaderSize(nc, 64<<10) // the frame reader below reads through it
	body, err := rpc.ReadFrame(br, hb.srv.MaxFrame())
	if err != nil {
		return
	}
	id, p, herr := ParseAttach(body)
	if herr == nil {
		herr = hb.checkAttach(p)
	}
	var resp *jsonrpc2.Response
	if herr != nil {
		resp = jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(herr.Code), Message: herr.Message})
	} else {
		res, _ := json.Marshal(protocol.AttachResult{ProtocolVersion: ProtocolVersion, PID: os.Getpid(), Path: hb.sess.SessionPath()})
		resp = jsonrpc2.NewResponse(id, res, nil)
	}
	if err := WriteFrame(nc, resp); err != nil || herr != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	sc := &Conn{hub: hb, nc: nc, pid: p.PID, follower: p.Follower}
	ctx := context.WithValue(hb.ctx, connKey{}, sc)
	_ = hb.srv.Serve(ctx, ReadCloser{Reader: br, C: nc}, nc)
}

// checkAttach refuses an attacher of another protocol version, and one that
// asked for a session this hub no longer serves.
func (hb *Hub) checkAttach(p protocol.AttachParams) *rpc.Error {
	if p.ProtocolVersion != ProtocolVersion {
		return &rpc.Error{Code: rpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"attach refused: the owner (pid %d) speaks attach protocol version %d, the attaching pi-lsp (pid %d) speaks version %d; run the same pi-lsp version in both",
			os.Getpid(), ProtocolVersion, p.PID, p.ProtocolVersion)}
	}
	cur := hb.sess.SessionPath()
	if cur == "" || !SameFile(cur, p.Path) {
		return &rpc.Error{Code: rpc.CodeLocked, Message: fmt.Sprintf("attach refused: pid %d no longer serves %s", os.Getpid(), p.Path)}
	}
	return nil
}
