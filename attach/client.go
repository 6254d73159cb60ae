package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pi-lsp/pi-lsp/protocol"
	"log/slog"
	"net"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
)

// ErrNoOwner is returned by DialSession when nobody serves the session: no
// socket, or a stale one. The caller may open the session itself.
var ErrNoOwner = errors.New("attach: no pi-lsp process serves this session")

// SessionConn is a native-protocol connection to the owner of a session,
// over its socket, for a terminal command (pi-lsp exec --session, pi-lsp
// attach). It declares no ui capability: the owner's other clients answer
// the questions.
type SessionConn struct {
	conn     jsonrpc2.Conn
	st       rpc.Stream
	ownerPID int
}

// DialSession connects to the owner of the session at path, exchanges
// versions and initializes with info and caps. onNote receives the owner's
// notifications in order, on the connection's read loop (it must not
// block for long). ErrNoOwner when nobody listens.
func DialSession(ctx context.Context, path string, info rpc.ClientInfo, caps rpc.ClientCapabilities, onNote func(method string, params json.RawMessage)) (*SessionConn, error) {
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
	res, br, err := Handshake(nc, protocol.AttachParams{ProtocolVersion: ProtocolVersion, PID: os.Getpid(), Path: path, ClientInfo: &info, Follower: true})
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	st := rpc.NewStream(ReadCloser{Reader: br, C: nc}, nc, rpc.DefaultMaxFrame, nil, slog.New(slog.DiscardHandler))
	sc := &SessionConn{conn: jsonrpc2.NewConn(st, rpc.Codec()), st: st, ownerPID: res.PID}
	sc.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			if onNote != nil {
				onNote(req.Method(), append(json.RawMessage(nil), req.Params()...))
			}
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: rpc.CodeMethodNotFound, Message: "this client answers no requests"}
	})
	ip := rpc.InitializeParams{InitializeParams: protocol.InitializeParams{ClientInfo: &info, Capabilities: caps}}
	if err := sc.Call(ctx, "initialize", ip, nil); err != nil {
		_ = sc.Close()
		return nil, err
	}
	if err := sc.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		_ = sc.Close()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return sc, nil
}

// OwnerPID is the owner's process id.
func (sc *SessionConn) OwnerPID() int { return sc.ownerPID }

// Call sends a request to the owner; an error it answers is an *Error.
func (sc *SessionConn) Call(ctx context.Context, method string, params, result any) error {
	if _, err := sc.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, rpc.FromWire(err))
	}
	return nil
}

// Done is closed when the owner's side of the connection ends.
func (sc *SessionConn) Done() <-chan struct{} { return sc.st.Ended() }

// Close ends the connection.
func (sc *SessionConn) Close() error { return sc.st.Close() }
