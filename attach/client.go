package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// ErrNoOwner is returned by DialSession (and wrapped by a Link's dial) when
// nobody serves the session: no socket, or a stale one. The caller may
// open the session itself.
var ErrNoOwner = errors.New("attach: no pi-lsp process serves this session")

// wire is one connection to the owner of a session, over its socket, past
// the handshake and initialize.
type wire struct {
	st       rpc.Stream
	conn     jsonrpc2.Conn
	ownerPID int
}

// dial connects to the socket of the session at path, exchanges versions
// (ap) and initializes the connection with ip. serve is called once the
// stream exists, before anything is read: it returns the handler of what
// the owner sends and the context the handler runs in. ErrNoOwner (wrapped)
// when nobody listens; a refusal by the owner is an *rpc.Error (wrapped).
// Both DialSession and a Link's upstream connect through it.
func dial(ctx context.Context, path string, ap protocol.AttachParams, ip rpc.InitializeParams, log *slog.Logger, serve func(*wire) (context.Context, jsonrpc2.Handler)) (*wire, error) {
	sock, err := session.SocketPath(path)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoOwner, err)
	}
	ap.ProtocolVersion, ap.PID, ap.Path = ProtocolVersion, os.Getpid(), path
	res, br, err := Handshake(nc, ap)
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	// No mask: masking is for what leaves toward an editor, and the owner
	// masks what it sends.
	st := rpc.NewStream(ReadCloser{Reader: br, C: nc}, nc, rpc.DefaultMaxFrame, nil, log)
	w := &wire{st: st, conn: jsonrpc2.NewConn(st, rpc.Codec()), ownerPID: res.PID}
	hctx, handle := serve(w)
	w.conn.Go(hctx, handle)
	ictx, icancel := context.WithTimeout(ctx, 10*time.Second)
	defer icancel()
	if _, err := w.conn.Call(ictx, "initialize", ip, nil); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("initialize: %w", rpc.FromWire(err))
	}
	if err := w.conn.Notify(ictx, "initialized", struct{}{}); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return w, nil
}

// SessionConn is a native-protocol connection to the owner of a session,
// over its socket, for a terminal command (pi-lsp exec --session, pi-lsp
// attach). It declares no ui capability: the owner's other clients answer
// the questions.
type SessionConn struct {
	w *wire
}

// DialSession connects to the owner of the session at path, exchanges
// versions and initializes with info and caps. onNote receives the owner's
// notifications in order, on the connection's read loop (it must not
// block for long). ErrNoOwner when nobody listens.
func DialSession(ctx context.Context, path string, info rpc.ClientInfo, caps rpc.ClientCapabilities, onNote func(method string, params json.RawMessage)) (*SessionConn, error) {
	ip := rpc.InitializeParams{InitializeParams: protocol.InitializeParams{ClientInfo: &info, Capabilities: caps}}
	w, err := dial(ctx, path, protocol.AttachParams{ClientInfo: &info, Follower: true}, ip, slog.New(slog.DiscardHandler),
		func(*wire) (context.Context, jsonrpc2.Handler) {
			return context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
				if !req.IsCall() {
					if onNote != nil {
						onNote(req.Method(), append(json.RawMessage(nil), req.Params()...))
					}
					return nil, nil
				}
				return nil, &jsonrpc2.Error{Code: rpc.CodeMethodNotFound, Message: "this client answers no requests"}
			}
		})
	if err != nil {
		return nil, err
	}
	return &SessionConn{w: w}, nil
}

// OwnerPID is the owner's process id.
func (sc *SessionConn) OwnerPID() int { return sc.w.ownerPID }

// Call sends a request to the owner; an error it answers is an *Error.
func (sc *SessionConn) Call(ctx context.Context, method string, params, result any) error {
	if _, err := sc.w.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, rpc.FromWire(err))
	}
	return nil
}

// Done is closed when the owner's side of the connection ends.
func (sc *SessionConn) Done() <-chan struct{} { return sc.w.st.Ended() }

// Close ends the connection.
func (sc *SessionConn) Close() error { return sc.w.st.Close() }
