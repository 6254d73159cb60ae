package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// handshakeTimeout bounds the first message on a session's socket.
const handshakeTimeout = 10 * time.Second

// accept serves every connection of ln until it is closed.
func (hb *hub) accept(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		go hb.serveConn(nc)
	}
}

// serveConn checks the peer, answers the version handshake and serves the
// native protocol on nc as one more client of the hub's harness.
func (hb *hub) serveConn(nc net.Conn) {
	defer nc.Close()
	if err := checkPeerConn(nc); err != nil {
		hb.a.logWarn("attach: connection refused", err)
		return
	}
	_ = nc.SetDeadline(time.Now().Add(handshakeTimeout))
	br := bufio.NewReaderSize(nc, 64<<10) // the frame reader below reads through it
	body, err := newFrameReader(br, hb.srv.opts.MaxFrame).Next()
	if err != nil {
		return
	}
	id, p, herr := parseAttach(body)
	if herr == nil {
		herr = hb.checkAttach(p)
	}
	var resp *jsonrpc2.Response
	if herr != nil {
		resp = jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(herr.Code), Message: herr.Message})
	} else {
		res, _ := json.Marshal(attachResult{ProtocolVersion: AttachProtocolVersion, PID: os.Getpid(), Path: hb.h.SessionInfo().Path})
		resp = jsonrpc2.NewResponse(id, res, nil)
	}
	if err := writeFrame(nc, resp); err != nil || herr != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	sc := &sockConn{hub: hb, conn: nc, pid: p.PID, follower: p.Follower}
	ctx := context.WithValue(hb.ctx, sockConnKey{}, sc)
	_ = hb.srv.Serve(ctx, readCloser{br, nc}, nc)
}

// checkAttach refuses an attacher of another protocol version, and one that
// asked for a session this harness no longer serves.
func (hb *hub) checkAttach(p attachParams) *Error {
	if p.ProtocolVersion != AttachProtocolVersion {
		return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(
			"attach refused: the owner (pid %d) speaks attach protocol version %d, the attaching pi-lsp (pid %d) speaks version %d; run the same pi-lsp version in both",
			os.Getpid(), AttachProtocolVersion, p.PID, p.ProtocolVersion)}
	}
	cur := hb.h.SessionInfo().Path
	if cur == "" || !sameFile(cur, p.Path) {
		return &Error{Code: CodeLocked, Message: fmt.Sprintf("attach refused: pid %d no longer serves %s", os.Getpid(), p.Path)}
	}
	return nil
}

// parseAttach reads the $/pi-lsp/attach request.
func parseAttach(body []byte) (jsonrpc2.ID, attachParams, *Error) {
	var p attachParams
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return jsonrpc2.ID{}, p, &Error{Code: CodeParseError, Message: "attach: the first message is not JSON-RPC: " + err.Error()}
	}
	call, ok := msg.(*jsonrpc2.Call)
	if !ok || call.Method() != methodAttach {
		var id jsonrpc2.ID
		if ok {
			id = call.ID()
		}
		return id, p, &Error{Code: CodeInvalidRequest, Message: "attach: the first message on a session socket must be the request " + methodAttach}
	}
	if err := json.Unmarshal(call.Params(), &p); err != nil {
		return call.ID(), p, ErrInvalidParams(methodAttach + ": " + err.Error())
	}
	return call.ID(), p, nil
}

// initShared is initialize of a connection accepted on a hub's socket: it
// shares the owner's harness (its session, queue and settings) and gets its
// own display.
func (a *agent) initShared(ctx context.Context, c *Client, p InitializeParams, sc *sockConn) error {
	hb := sc.hub
	if hb.ctx.Err() != nil {
		return &Error{Code: CodeLocked, Message: "attach refused: the owner is leaving"}
	}
	hb.mu.Lock()
	hb.socks[c] = sc
	hb.mu.Unlock()
	if opts, err := p.Options(); err == nil {
		a.setDisplayAfter(c, displayAt{stream: opts.DisplayStream, version: opts.DisplayVersion})
	}
	return a.connect(ctx, c, p, hb.h, true)
}

// writeFrame writes one message with the LSP header (the handshake, before
// the connection's stream exists).
func writeFrame(w io.Writer, msg jsonrpc2.Message) error {
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

// readCloser reads through a buffered reader and closes the connection.
type readCloser struct {
	*bufio.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// sameFile reports whether a and b name the same file (device and inode).
func sameFile(a, b string) bool {
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
