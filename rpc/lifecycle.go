package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"strings"

	"github.com/pi-lsp/pi-lsp/protocol"
	"go.lsp.dev/jsonrpc2"
)

// InitializeParams are the params of initialize (protocol.InitializeParams,
// with rpc's helpers).
type InitializeParams struct {
	protocol.InitializeParams
}

// The initialize exchange's types are protocol's; these names keep rpc's
// API.
type (
	// ClientInfo names the client.
	ClientInfo = protocol.ClientInfo
	// ClientCapabilities is what the client declared it can do.
	ClientCapabilities = protocol.ClientCapabilities
	// UICapabilities: the client answers these server→client requests.
	UICapabilities = protocol.UICapabilities
	// FSCapabilities: the client serves its editor buffers.
	FSCapabilities = protocol.FSCapabilities
	// InitOptions are the initializationOptions pi-lsp knows.
	InitOptions = protocol.InitOptions
	// InitializeResult is the result of initialize.
	InitializeResult = protocol.InitializeResult
	// ServerInfo names the server.
	ServerInfo = protocol.ServerInfo
	// ServerCapabilities is what the server offers.
	ServerCapabilities = protocol.ServerCapabilities
)

// Options decodes the initializationOptions (zero when absent).
func (p InitializeParams) Options() (InitOptions, error) {
	var o InitOptions
	raw := bytes.TrimSpace(p.InitializationOptions)
	if len(raw) == 0 || string(raw) == "null" {
		return o, nil
	}
	if err := DecodeParams(raw, &o); err != nil {
		return o, ErrInvalidParams("initializationOptions: " + strings.TrimPrefix(err.Error(), "invalid params: "))
	}
	if _, ok := parseLogLevel(o.LogLevel); !ok {
		return o, ErrInvalidParams(`initializationOptions.logLevel must be one of "error", "warn", "info", "debug", "off"`)
	}
	return o, nil
}

// RootPath is the local path of RootURI ("" when it is not a file URI).
func (p InitializeParams) RootPath() string {
	u, err := url.Parse(p.RootURI)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return u.Path
}

// parseLogLevel maps initializationOptions.logLevel to a slog level; ok is
// false for an unknown name. "" and "off" disable window/logMessage.
func parseLogLevel(s string) (lvl *slog.Level, ok bool) {
	l := func(v slog.Level) *slog.Level { return &v }
	switch strings.ToLower(s) {
	case "", "off", "none":
		return nil, true
	case "error":
		return l(slog.LevelError), true
	case "warn", "warning":
		return l(slog.LevelWarn), true
	case "info":
		return l(slog.LevelInfo), true
	case "debug", "log", "trace":
		return l(slog.LevelDebug), true
	}
	return nil, false
}

// initialize answers the initialize request (inline on the read loop).
func (c *Client) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p InitializeParams
	if err := DecodeParams(raw, &p); err != nil {
		return nil, toWire(err)
	}
	opts, err := p.Options()
	if err != nil {
		return nil, toWire(err)
	}
	lvl, _ := parseLogLevel(opts.LogLevel)
	c.mu.Lock()
	c.params = p // the hook sees Capabilities() and Params()
	c.logLevel = lvl
	c.mu.Unlock()
	if h := c.srv.opts.OnInitialize; h != nil {
		if err := h(ctx, c, p); err != nil {
			return nil, toWire(err)
		}
	}
	c.mu.Lock()
	c.state = stateRunning
	c.mu.Unlock()
	res := InitializeResult{
		ServerInfo:   ServerInfo{Name: c.srv.opts.Name, Version: c.srv.opts.Version},
		Capabilities: ServerCapabilities{Methods: c.srv.Methods()},
	}
	if h := c.srv.opts.OnResult; h != nil {
		h(c, &res)
	}
	return res, nil
}

// shutdown answers shutdown: later requests answer -32600; OnShutdown runs
// (it aborts any run) before the reply.
func (c *Client) shutdown(ctx context.Context) (any, error) {
	c.mu.Lock()
	c.state = stateShutdown
	c.mu.Unlock()
	jsonrpc2.Async(ctx)
	if h := c.srv.opts.OnShutdown; h != nil {
		if err := h(c.ctx, c); err != nil {
			c.srv.log.Warn("shutdown hook failed", "err", err)
		}
	}
	return nil, nil
}

// exit ends Serve: cleanly after shutdown, with ErrExitWithoutShutdown
// otherwise.
func (c *Client) exit() {
	c.mu.Lock()
	err := ErrExitWithoutShutdown
	if c.state == stateShutdown {
		err = nil
	}
	c.mu.Unlock()
	c.exitOnce.Do(func() {
		c.exitErr = err
		close(c.exitCh)
	})
}

// Errors Serve returns; ExitCode maps them to a process exit code.
var (
	ErrExitWithoutShutdown = errors.New("rpc: exit received before shutdown")
	ErrInputClosed         = errors.New("rpc: the client closed the input")
	ErrOutputBroken        = errors.New("rpc: writing to the client failed")
)

// ExitCode is the process exit code for Serve's result, as LSP defines it:
// 0 after shutdown+exit, when the input closed, or when ctx was cancelled
// (the parent died, a signal); 1 for exit without shutdown or an I/O failure.
func ExitCode(serveErr error) int {
	switch {
	case serveErr == nil, errors.Is(serveErr, ErrInputClosed), errors.Is(serveErr, context.Canceled):
		return 0
	}
	return 1
}
