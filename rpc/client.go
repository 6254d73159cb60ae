package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
)

type lifecycle int

const (
	stateNew      lifecycle = iota // waiting for initialize
	stateRunning                   // initialize answered
	stateShutdown                  // shutdown received
)

// ErrNoCapability is returned by Call for a server→client request the
// client did not declare in initialize.
var ErrNoCapability = errors.New("rpc: the client did not declare this capability")

// ErrClosed is returned by Call and Notify once the connection has ended.
var ErrClosed = errors.New("rpc: connection closed")

// Client is one connected client: its lifecycle, capabilities, requests in
// flight, and the values upper layers keep per connection (SetValue).
// Handlers receive it; it is safe for concurrent use.
type Client struct {
	srv    *Server
	conn   jsonrpc2.Conn
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	state    lifecycle
	params   InitializeParams
	logLevel *slog.Level // nil: no window/logMessage
	inflight map[jsonrpc2.ID]*request
	ready    chan struct{} // closed once the client has the initialize result
	isReady  bool
	values   map[any]any // SetValue
	closing  bool        // teardown began: spawn refuses

	handlers sync.WaitGroup // request goroutines and pushers
	exitCh   chan struct{}
	exitErr  error
	exitOnce sync.Once
}

// request is one request in flight.
type request struct {
	cancel    context.CancelFunc
	cancelled bool // by $/cancelRequest
}

func newClient(s *Server, ctx context.Context, cancel context.CancelFunc) *Client {
	return &Client{
		srv: s, ctx: ctx, cancel: cancel,
		inflight: map[jsonrpc2.ID]*request{},
		ready:    make(chan struct{}),
		exitCh:   make(chan struct{}),
	}
}

// Params returns the initialize params (zero before initialize).
func (c *Client) Params() InitializeParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.params
}

// Capabilities returns what the client declared in initialize.
func (c *Client) Capabilities() ClientCapabilities { return c.Params().Capabilities }

func (c *Client) isShutdown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == stateShutdown
}

// markReady records that the client has the initialize result (it sent
// initialized, or another request after initialize): pushes may start.
func (c *Client) markReady() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.isReady && c.state != stateNew {
		c.isReady = true
		close(c.ready)
	}
}

// capability maps server→client methods to the capability they need.
func capability(caps ClientCapabilities, method string) (known, ok bool) {
	switch method {
	case "ui/requestApproval":
		return true, caps.UI.Approvals
	case "ui/askQuestion":
		return true, caps.UI.Questions
	case "ui/approvePlan":
		return true, caps.UI.PlanApproval
	case "fs/readTextFile":
		return true, caps.FS.ReadTextFile
	case "fs/writeTextFile":
		return true, caps.FS.WriteTextFile
	case "editor/diagnostics", "editor/lsp":
		return true, caps.Diagnostics
	case "ui/elicit":
		return true, caps.UI.Elicitation
	case "window/showDocument":
		return true, caps.Window.ShowDocument != nil && caps.Window.ShowDocument.Support
	}
	return false, true
}

// Call sends a request to the client and waits for its answer, decoded into
// result (may be nil). Notifications and other requests keep flowing while
// it waits. An error the client answers is an *Error. For the ui/* and fs/*
// methods of docs/protocol.md it returns ErrNoCapability unless the client
// declared the capability. If ctx ends first, the client is sent
// $/cancelRequest and ctx's error is returned.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if known, ok := capability(c.Capabilities(), method); known && !ok {
		return fmt.Errorf("%s: %w", method, ErrNoCapability)
	}
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	ctx, stop := mergeCancel(ctx, c.ctx)
	defer stop()
	id, err := c.conn.Call(ctx, method, params, result)
	if err != nil {
		if ctx.Err() != nil {
			if c.ctx.Err() == nil {
				_ = c.conn.Notify(c.ctx, "$/cancelRequest", cancelParams{ID: idValue(id)})
			} else {
				return ErrClosed
			}
			return ctx.Err()
		}
		return fmt.Errorf("%s: %w", method, fromWire(err))
	}
	return nil
}

// Notify sends a notification to the client.
func (c *Client) Notify(method string, params any) error {
	if c.ctx.Err() != nil {
		return ErrClosed
	}
	if err := c.conn.Notify(c.ctx, method, params); err != nil {
		if c.ctx.Err() != nil {
			return ErrClosed
		}
		return fmt.Errorf("rpc: notify %s: %w", method, err)
	}
	return nil
}

// Log writes msg to the server log (stderr) and, when the client asked for
// it with initializationOptions.logLevel at or below level, sends it as
// window/logMessage.
func (c *Client) Log(level slog.Level, msg string) {
	c.srv.log.Log(c.ctx, level, msg)
	c.mu.Lock()
	threshold := c.logLevel
	c.mu.Unlock()
	if threshold == nil || level < *threshold {
		return
	}
	typ := 4 // Log
	switch {
	case level >= slog.LevelError:
		typ = 1
	case level >= slog.LevelWarn:
		typ = 2
	case level >= slog.LevelInfo:
		typ = 3
	}
	_ = c.Notify("window/logMessage", protocol.LogMessageParams{Type: typ, Message: msg})
}

// Progress sends $/progress {token, value}; value is the LSP work-done
// payload ({"kind": "begin"|"report"|"end", …}).
func (c *Client) Progress(token string, value protocol.WorkProgress) error {
	return c.Notify("$/progress", protocol.ProgressParams{Token: token, Value: value})
}

// Context is the connection's context: it ends when the connection does.
func (c *Client) Context() context.Context { return c.ctx }

// Close ends the connection: Serve returns as if its ctx were cancelled.
func (c *Client) Close() { c.cancel() }

// Go runs f in a goroutine that the end of the connection waits for (a
// bounded time); f should return once Context ends. It returns false, and
// does not run f, once the connection is closing.
func (c *Client) Go(f func()) bool { return c.spawn(f) }

// WaitReady blocks until the client has the initialize result (pushes may
// start); false if the connection ends first.
func (c *Client) WaitReady() bool {
	select {
	case <-c.ready:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// Value returns what an upper layer stored on c under key (nil if none).
func (c *Client) Value(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.values[key]
}

// LoadOrStore returns the value stored on c under key, storing v first
// when there is none (see SetValue).
func (c *Client) LoadOrStore(key, v any) any {
	c.mu.Lock()
	if old, ok := c.values[key]; ok {
		c.mu.Unlock()
		return old
	}
	c.mu.Unlock()
	c.SetValue(key, v)
	return v
}

// SetValue stores v on c under key (nil removes it), replacing an earlier
// value (the caller ends a value it replaces). When the connection ends,
// each value left that has a Close() method is closed, before OnDisconnect
// runs. A value set once the connection is closing is closed at once.
func (c *Client) SetValue(key, v any) {
	c.mu.Lock()
	closing := c.closing
	if !closing {
		if c.values == nil {
			c.values = map[any]any{}
		}
		if v == nil {
			delete(c.values, key)
		} else {
			c.values[key] = v
		}
	}
	c.mu.Unlock()
	if closing {
		closeValue(v)
	}
}

func closeValue(v any) {
	if cl, ok := v.(interface{ Close() }); ok {
		cl.Close()
	}
}

// teardown ends the connection's work: requests are cancelled, pushers
// stop, the values upper layers stored are closed. It waits a bounded time
// for handlers to return.
func (c *Client) teardown() {
	c.cancel()
	c.mu.Lock()
	c.closing = true
	values := c.values
	c.values = nil
	c.mu.Unlock()
	for _, v := range values {
		closeValue(v)
	}
	done := make(chan struct{})
	go func() {
		c.handlers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainGrace):
		c.srv.log.Warn("handlers still running after the connection ended")
	}
}

// mergeCancel returns a context cancelled when either a or b is.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}
