package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/rpc"
	"go.lsp.dev/jsonrpc2"
)

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
	if err := attach.CheckPeerConn(nc); err != nil {
		hb.a.logWarn("attach: connection refused", err)
		return
	}
	_ = nc.SetDeadline(time.Now().Add(attach.HandshakeTimeout))
	br := bufio.NewReaderSize(nc, 64<<10) // the frame reader below reads through it
	body, err := rpc.ReadFrame(br, hb.srv.MaxFrame())
	if err != nil {
		return
	}
	id, p, herr := attach.ParseAttach(body)
	if herr == nil {
		herr = hb.checkAttach(p)
	}
	var resp *jsonrpc2.Response
	if herr != nil {
		resp = jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(herr.Code), Message: herr.Message})
	} else {
		res, _ := json.Marshal(attachResult{ProtocolVersion: attach.ProtocolVersion, PID: os.Getpid(), Path: hb.h.SessionInfo().Path})
		resp = jsonrpc2.NewResponse(id, res, nil)
	}
	if err := attach.WriteFrame(nc, resp); err != nil || herr != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	sc := &sockConn{hub: hb, conn: nc, pid: p.PID, follower: p.Follower}
	ctx := context.WithValue(hb.ctx, sockConnKey{}, sc)
	_ = hb.srv.Serve(ctx, attach.ReadCloser{Reader: br, C: nc}, nc)
}

// checkAttach refuses an attacher of another protocol version, and one that
// asked for a session this harness no longer serves.
func (hb *hub) checkAttach(p attachParams) *rpc.Error {
	if p.ProtocolVersion != attach.ProtocolVersion {
		return &rpc.Error{Code: rpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"attach refused: the owner (pid %d) speaks attach protocol version %d, the attaching pi-lsp (pid %d) speaks version %d; run the same pi-lsp version in both",
			os.Getpid(), attach.ProtocolVersion, p.PID, p.ProtocolVersion)}
	}
	cur := hb.h.SessionInfo().Path
	if cur == "" || !attach.SameFile(cur, p.Path) {
		return &rpc.Error{Code: rpc.CodeLocked, Message: fmt.Sprintf("attach refused: pid %d no longer serves %s", os.Getpid(), p.Path)}
	}
	return nil
}

// initShared is initialize of a connection accepted on a hub's socket: it
// shares the owner's harness (its session, queue and settings) and gets its
// own display.
func (a *agent) initShared(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, sc *sockConn) error {
	hb := sc.hub
	if hb.ctx.Err() != nil {
		return &rpc.Error{Code: rpc.CodeLocked, Message: "attach refused: the owner is leaving"}
	}
	hb.mu.Lock()
	hb.socks[c] = sc
	hb.mu.Unlock()
	if opts, err := p.Options(); err == nil {
		a.setDisplayAfter(c, displayAt{stream: opts.DisplayStream, version: opts.DisplayVersion})
	}
	return a.connect(ctx, c, p, hb.h, true)
}
