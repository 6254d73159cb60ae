// Package rpctest is a small LSP-framed JSON-RPC client for tests of
// pi-lsp's native protocol: over pipes to an in-process rpc.Server, or over
// the stdio of the real binary (Dial). It answers server→client requests
// with registered handlers, records every notification, and keeps a live
// copy of the display state by applying display/state frames as an editor
// does.
//
// It has its own framing code, independent of the server's, so tests catch
// what a foreign client would.
package rpctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Error is a JSON-RPC error answered by the server.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Notification is one notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
	Bytes  int // framed size on the wire, header included
}

// Response is a response that answered no pending call (for instance the
// null-id error answering a malformed frame).
type Response struct {
	ID     json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// Handler answers a server→client request. Returning an *Error sends it.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Client is a test client. Its methods are safe for concurrent use.
type Client struct {
	w   io.Writer
	wmu sync.Mutex
	in  *bufio.Reader

	seq atomic.Int64

	mu        sync.Mutex
	pending   map[string]chan Response
	handlers  map[string]Handler
	notes     []Notification
	unmatched []Response
	display   Display
	changed   chan struct{} // closed and replaced whenever something arrives
	readErr   error
	done      chan struct{}
	received  []byte // every frame body the server sent, in order, one per line

	ctx    context.Context
	cancel context.CancelFunc
}

// New starts a client reading the server's output r and writing its input w.
func New(r io.Reader, w io.Writer) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		w: w, in: bufio.NewReader(r),
		pending:  map[string]chan Response{},
		handlers: map[string]Handler{},
		changed:  make(chan struct{}),
		done:     make(chan struct{}),
		ctx:      ctx, cancel: cancel,
	}
	go c.readLoop()
	return c
}

// Dial starts cmd (the pi-lsp binary, say) and connects to its stdio. The
// caller waits for cmd after closing the client.
func Dial(cmd *exec.Cmd) (*Client, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("rpctest: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("rpctest: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rpctest: start %s: %w", cmd.Path, err)
	}
	return New(stdout, stdin), nil
}

// Handle answers the server's requests for method with h.
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// Pending is a call waiting for its response.
type Pending struct {
	ID int64
	c  *Client
	ch chan Response
}

// Start sends a request and returns without waiting.
func (c *Client) Start(method string, params any) (*Pending, error) {
	id := c.seq.Add(1)
	ch := make(chan Response, 1)
	key := strconv.FormatInt(id, 10)
	c.mu.Lock()
	c.pending[key] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.send(msg); err != nil {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		return nil, err
	}
	return &Pending{ID: id, c: c, ch: ch}, nil
}

// Wait waits for the response and decodes its result into result (may be
// nil). A JSON-RPC error is returned as *Error.
func (p *Pending) Wait(ctx context.Context, result any) error {
	select {
	case r := <-p.ch:
		if r.Error != nil {
			return r.Error
		}
		if result != nil {
			if err := json.Unmarshal(r.Result, result); err != nil {
				return fmt.Errorf("rpctest: decode result %s: %w", r.Result, err)
			}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.c.done:
		return fmt.Errorf("rpctest: connection closed before the response: %w", p.c.Err())
	}
}

// Call sends a request and waits for its response.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Start(method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Cancel sends $/cancelRequest for a request.
func (c *Client) Cancel(id int64) error {
	return c.Notify("$/cancelRequest", map[string]any{"id": id})
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.send(msg)
}

// Initialize sends initialize with params, then initialized, and returns
// the initialize result.
func (c *Client) Initialize(ctx context.Context, params any) (json.RawMessage, error) {
	var res json.RawMessage
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	return res, c.Notify("initialized", map[string]any{})
}

// WriteRaw writes bytes as they are: malformed frames for tests.
func (c *Client) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Frame wraps body in an LSP header.
func Frame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

func (c *Client) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("rpctest: %w", err)
	}
	return c.WriteRaw(Frame(body))
}

// Close closes the input of the server (when it is an io.Closer) and stops
// answering requests.
func (c *Client) Close() error {
	c.cancel()
	if cl, ok := c.w.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// Done is closed when the server's output ends.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the output ended (io.EOF for a clean close).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Received returns every message body the server wrote, in order, each
// followed by a newline: responses, notifications and server→client
// requests, as bytes, before any decoding.
func (c *Client) Received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.received...)
}

// Notifications returns the notifications received so far for method (all
// of them for ""), in order.
func (c *Client) Notifications(method string) []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Notification
	for _, n := range c.notes {
		if method == "" || n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// LastNotification returns the latest notification of method ("" = any)
// and whether there is one. Unlike Notifications it copies nothing, so a
// WaitFor condition that looks at the newest notification stays cheap
// however many have arrived.
func (c *Client) LastNotification(method string) (Notification, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.notes) - 1; i >= 0; i-- {
		if method == "" || c.notes[i].Method == method {
			return c.notes[i], true
		}
	}
	return Notification{}, false
}

// Unmatched returns the responses that answered no call of this client.
func (c *Client) Unmatched() []Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Response(nil), c.unmatched...)
}

// WaitFor blocks until cond (evaluated after each message received, and
// once at once) is true, ctx ends, or the connection closes.
func (c *Client) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			if cond() {
				return nil
			}
			return fmt.Errorf("rpctest: connection closed: %w", c.Err())
		}
	}
}

func (c *Client) readLoop() {
	var err error
	for {
		var body []byte
		var n int
		body, n, err = readFrame(c.in)
		if err != nil {
			break
		}
		c.mu.Lock()
		c.received = append(append(c.received, body...), '\n')
		c.mu.Unlock()
		c.dispatch(body, n)
	}
	c.mu.Lock()
	c.readErr = err
	c.broadcast()
	c.mu.Unlock()
	close(c.done)
}

// broadcast wakes WaitFor; the caller holds mu.
func (c *Client) broadcast() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) dispatch(body []byte, size int) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		c.mu.Lock()
		c.unmatched = append(c.unmatched, Response{Error: &Error{Code: -1, Message: "rpctest: undecodable message from the server: " + string(body)}})
		c.broadcast()
		c.mu.Unlock()
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.broadcast()
	switch {
	case m.Method != "" && hasID:
		h := c.handlers[m.Method]
		go c.answer(m.ID, m.Method, m.Params, h)
	case m.Method != "":
		c.notes = append(c.notes, Notification{Method: m.Method, Params: m.Params, Bytes: size})
		if m.Method == "display/state" {
			c.display.apply(m.Params, size)
		}
	default:
		r := Response{ID: m.ID, Result: m.Result, Error: m.Error}
		key := string(bytes.TrimSpace(m.ID))
		if ch, ok := c.pending[key]; ok && hasID {
			delete(c.pending, key)
			ch <- r
			return
		}
		c.unmatched = append(c.unmatched, r)
	}
}

func (c *Client) answer(id json.RawMessage, method string, params json.RawMessage, h Handler) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if h == nil {
		msg["error"] = &Error{Code: -32601, Message: "rpctest: no handler for " + method}
	} else if res, err := h(c.ctx, params); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: -32603, Message: err.Error()}
		}
		msg["error"] = e
	} else {
		msg["result"] = res
	}
	_ = c.send(msg)
}

// readFrame reads one LSP frame and returns its body and framed size.
func readFrame(r *bufio.Reader) ([]byte, int, error) {
	length, size := -1, 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && size > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		size += len(line)
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, 0, fmt.Errorf("rpctest: bad header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				return nil, 0, fmt.Errorf("rpctest: bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, 0, errors.New("rpctest: frame without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, 0, err
	}
	return body, size + length, nil
}
