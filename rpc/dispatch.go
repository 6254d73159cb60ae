package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// handle is the connection's jsonrpc2 handler. It runs on the read loop:
// lifecycle checks, initialize and notifications are handled inline, in
// wire order; every other request is registered for cancellation and then
// released (jsonrpc2.Async) to run concurrently.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	if !req.IsCall() {
		c.notification(method, cloneRaw(req.Params()))
		return nil, nil // a notification error would end the connection
	}
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	switch {
	case method == "initialize" && state == stateNew:
		return c.initialize(ctx, cloneRaw(req.Params()))
	case method == "initialize":
		return nil, &jsonrpc2.Error{Code: CodeInvalidRequest, Message: "invalid request: initialize was already received"}
	case state == stateNew:
		return nil, &jsonrpc2.Error{Code: CodeServerNotInitialized, Message: fmt.Sprintf("server not initialized: send initialize before %s", method)}
	case state == stateShutdown:
		return nil, &jsonrpc2.Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: the server is shut down; %s refused (send exit)", method)}
	}
	c.markReady()
	if method == "shutdown" {
		return c.shutdown(ctx)
	}
	h := c.route(method, false)
	if h == nil {
		return nil, &jsonrpc2.Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s", method)}
	}
	id := req.ID()
	params := cloneRaw(req.Params())
	rctx, rq := c.track(id)
	defer c.untrack(id)
	jsonrpc2.Async(ctx)

	type outcome struct {
		res any
		err error
	}
	done := make(chan outcome, 1)
	started := c.spawn(func() {
		defer func() {
			if p := recover(); p != nil {
				c.srv.log.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
				done <- outcome{err: fmt.Errorf("internal error: %s panicked: %v", method, p)}
			}
		}()
		res, err := h(rctx, c, params)
		done <- outcome{res, err}
	})
	if !started {
		return nil, errCancelled
	}
	select {
	case o := <-done:
		if o.err != nil {
			if c.wasCancelled(rq) {
				return nil, errCancelled
			}
			return nil, toWire(o.err)
		}
		return o.res, nil
	case <-rctx.Done():
		// Answer at once; the handler sees its context cancelled and its
		// result is dropped.
		return nil, errCancelled
	}
}

// track registers a request in flight and returns its context.
func (c *Client) track(id jsonrpc2.ID) (context.Context, *request) {
	ctx, cancel := context.WithCancel(c.ctx)
	rq := &request{cancel: cancel}
	c.mu.Lock()
	c.inflight[id] = rq
	c.mu.Unlock()
	return ctx, rq
}

func (c *Client) untrack(id jsonrpc2.ID) {
	c.mu.Lock()
	if rq, ok := c.inflight[id]; ok {
		rq.cancel()
		delete(c.inflight, id)
	}
	c.mu.Unlock()
}

func (c *Client) wasCancelled(rq *request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return rq.cancelled
}

// cancelRequest handles $/cancelRequest: the request's context is cancelled
// and it answers -32800. An unknown or finished id is ignored.
func (c *Client) cancelRequest(raw json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		c.Log(slog.LevelWarn, "$/cancelRequest: bad params: "+err.Error())
		return
	}
	id, ok := parseID(p.ID)
	if !ok {
		c.Log(slog.LevelWarn, "$/cancelRequest: id must be a string or an integer")
		return
	}
	c.mu.Lock()
	rq := c.inflight[id]
	if rq != nil {
		rq.cancelled = true
	}
	c.mu.Unlock()
	if rq != nil {
		rq.cancel()
	}
}

// notification handles a notification inline, in wire order.
func (c *Client) notification(method string, params json.RawMessage) {
	switch method {
	case "exit":
		c.exit()
		return
	case "$/cancelRequest":
		c.cancelRequest(params)
		return
	case "initialized":
		c.markReady()
		return
	}
	c.mu.Lock()
	state := c.state
	c.mu.Unlock()
	if state != stateRunning {
		return // LSP: notifications before initialize (or after shutdown) are dropped
	}
	h := c.route(method, true)
	if h == nil {
		if !strings.HasPrefix(method, "$/") {
			c.Log(slog.LevelWarn, "ignored unknown notification "+method)
		}
		return
	}
	c.spawn(func() {
		defer func() {
			if p := recover(); p != nil {
				c.srv.log.Error("notification handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		if _, err := h(c.ctx, c, params); err != nil {
			c.Log(slog.LevelWarn, fmt.Sprintf("notification %s failed: %v", method, err))
		}
	})
}

// route picks method's handler: Options.Route's when it answers, else the
// method table's.
func (c *Client) route(method string, notification bool) HandlerFunc {
	if r := c.srv.opts.Route; r != nil {
		if h, ok := r(c, method, notification); ok {
			return h
		}
	}
	return c.srv.Handler(method)
}

// spawn runs f in a goroutine teardown waits for; it refuses once the
// connection is closing.
func (c *Client) spawn(f func()) bool {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return false
	}
	c.handlers.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.handlers.Done()
		f()
	}()
	return true
}

type cancelParams struct {
	ID any `json:"id"`
}

// parseID reads a JSON-RPC id (a string or an integer).
func parseID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return jsonrpc2.ID{}, false
	}
	switch x := v.(type) {
	case string:
		return jsonrpc2.NewStringID(x), true
	case float64:
		if x == float64(int64(x)) {
			return jsonrpc2.NewNumberID(int64(x)), true
		}
	}
	return jsonrpc2.ID{}, false
}

// idValue is an id as a JSON value.
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	if s, ok := id.StringValue(); ok {
		return s
	}
	return nil
}

func cloneRaw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}
