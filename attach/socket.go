package attach

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// ProtocolVersion is the version of the attach protocol spoken on a
// session's socket. An attacher and an owner of different versions refuse
// each other with an error naming both.
const ProtocolVersion = 1

// MethodAttach is the first message on a session's socket.
const MethodAttach = "$/pi-lsp/attach"

// HandshakeTimeout bounds the first message on a session's socket.
const HandshakeTimeout = 10 * time.Second

// ParseAttach reads the $/pi-lsp/attach request.
func ParseAttach(body []byte) (jsonrpc2.ID, protocol.AttachParams, *rpc.Error) {
	var p protocol.AttachParams
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return jsonrpc2.ID{}, p, &rpc.Error{Code: rpc.CodeParseError, Message: "attach: the first message is not JSON-RPC: " + err.Error()}
	}
	call, ok := msg.(*jsonrpc2.Call)
	if !ok || call.Method() != MethodAttach {
		var id jsonrpc2.ID
		if ok {
			id = call.ID()
		}
		return id, p, &rpc.Error{Code: rpc.CodeInvalidRequest, Message: "attach: the first message on a session socket must be the request " + MethodAttach}
	}
	if err := json.Unmarshal(call.Params(), &p); err != nil {
		return call.ID(), p, rpc.ErrInvalidParams(MethodAttach + ": " + err.Error())
	}
	return call.ID(), p, nil
}

// Handshake sends $/pi-lsp/attach and reads the owner's answer.
func Handshake(nc net.Conn, p protocol.AttachParams) (protocol.AttachResult, *bufio.Reader, error) {
	var res protocol.AttachResult
	_ = nc.SetDeadline(time.Now().Add(HandshakeTimeout))
	defer func() { _ = nc.SetDeadline(time.Time{}) }()
	raw, _ := json.Marshal(p)
	if err := WriteFrame(nc, jsonrpc2.NewCall(jsonrpc2.NewNumberID(0), MethodAttach, raw)); err != nil {
		return res, nil, err
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	body, err := rpc.ReadFrame(br, rpc.DefaultMaxFrame)
	if err != nil {
		return res, nil, fmt.Errorf("attach: reading the owner's answer: %w", err)
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return res, nil, fmt.Errorf("attach: the owner's answer: %w", err)
	}
	resp, ok := msg.(*jsonrpc2.Response)
	if !ok {
		return res, nil, errors.New("attach: the owner's answer is not a response")
	}
	if err := resp.Err(); err != nil {
		return res, nil, rpc.FromWire(err)
	}
	if err := json.Unmarshal(resp.Result(), &res); err != nil {
		return res, nil, fmt.Errorf("attach: the owner's answer: %w", err)
	}
	if res.ProtocolVersion != ProtocolVersion {
		return res, nil, &rpc.Error{Code: rpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"attach refused: the owner (pid %d) speaks attach protocol version %d, this pi-lsp speaks version %d", res.PID, res.ProtocolVersion, ProtocolVersion)}
	}
	return res, br, nil
}

// WriteFrame writes one message with the LSP header (the handshake, before
// the connection's stream exists).
func WriteFrame(w io.Writer, msg jsonrpc2.Message) error {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("attach: encoding: %w", err)
	}
	buf := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("attach: writing: %w", err)
	}
	return nil
}

// ReadCloser reads through a buffered reader and closes the connection.
type ReadCloser struct {
	*bufio.Reader
	C io.Closer
}

func (r ReadCloser) Close() error { return r.C.Close() }

// SameFile reports whether a and b name the same file (device and inode).
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}
