package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/tools"
)

// HandlerFunc serves one method. params is the raw params (nil when absent);
// decode it with DecodeParams. The result is marshalled with encoding/json;
// return an *Error to choose the error code. ctx is cancelled when the
// client sends $/cancelRequest for this request or disconnects.
type HandlerFunc func(ctx context.Context, c *Client, params json.RawMessage) (any, error)

// Options configure a Server.
type Options struct {
	Name, Version string       // serverInfo
	Logger        *slog.Logger // stderr logs; nil uses slog.Default()
	MaxFrame      int          // largest accepted message body; 0 means DefaultMaxFrame (16 MiB)

	// OnInitialize runs inside initialize, before the result is sent, with
	// the decoded params; an error fails initialize (the client may retry).
	// It runs on the read loop: it must not call c.Call.
	OnInitialize func(ctx context.Context, c *Client, p InitializeParams) error
	// OnShutdown runs when shutdown arrives, before it is answered: abort
	// any run here.
	OnShutdown func(ctx context.Context, c *Client) error
	// OnDisconnect runs when Serve is about to return for c, whatever the
	// reason (exit, input closed, ctx cancelled).
	OnDisconnect func(c *Client)

	// Masker masks secrets in every outgoing message (see egress); nil
	// masks what tools.NewRedactor finds in the process's environment.
	Masker Masker

	// Route, when it answers ok for c, serves c's requests and
	// notifications after initialize instead of the method table (h nil:
	// method not found): an upper layer that serves some connections
	// itself, e.g. one attached to a session another process owns.
	Route func(c *Client, method string, notification bool) (h HandlerFunc, ok bool)
	// OnResult, when set, completes the initialize result sent to c, after
	// OnInitialize succeeded.
	OnResult func(c *Client, res *InitializeResult)
}

// Server is the method table and options shared by every connection.
type Server struct {
	opts     Options
	log      *slog.Logger
	mu       sync.RWMutex
	handlers map[string]HandlerFunc
}

// lifecycle methods the server answers itself.
func reserved(method string) bool {
	switch method {
	case "initialize", "initialized", "shutdown", "exit", "$/cancelRequest":
		return true
	}
	return false
}

// NewServer returns a server with an empty method table.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts, log: opts.Logger, handlers: map[string]HandlerFunc{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.opts.Masker == nil {
		s.opts.Masker = tools.NewRedactor(os.Environ())
	}
	if s.opts.MaxFrame <= 0 {
		s.opts.MaxFrame = DefaultMaxFrame
	}
	return s
}

// Register serves method with h, replacing any earlier handler. A
// registered method is also accepted as a notification (its result is
// dropped). It panics on a lifecycle method name or a nil handler.
func (s *Server) Register(method string, h HandlerFunc) {
	if reserved(method) || h == nil {
		panic(fmt.Sprintf("rpc: cannot register %q", method))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = h
}

// Methods lists the registered methods, sorted.
func (s *Server) Methods() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.handlers))
	for m := range s.handlers {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Handler returns method's handler in the table (nil if none).
func (s *Server) Handler(method string) HandlerFunc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.handlers[method]
}

// drainGrace bounds how long Serve waits for handlers to notice their
// cancelled context before it returns.
const drainGrace = 2 * time.Second

// Serve serves one client reading r and writing w until the client sends
// exit, the input ends, a write fails or ctx is cancelled. It returns nil
// after shutdown+exit, ErrExitWithoutShutdown, ErrInputClosed (nil if
// shutdown was received), ErrOutputBroken, or ctx's error; ExitCode maps
// the result to a process exit code. r and w are closed on return when they
// are io.Closers. Nothing but protocol frames is written to w.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := newClient(s, cctx, cancel)
	st := newStream(r, w, s.opts.MaxFrame, s.opts.Masker, s.log, func(code int, msg string) {
		c.Log(slog.LevelWarn, fmt.Sprintf("bad message from the client (%d): %s", code, msg))
	})
	conn := jsonrpc2.NewConn(st, jsonrpc2.WithCodec(jsonCodec{}))
	c.conn = conn
	conn.Go(cctx, c.handle)

	var err error
	select {
	case <-c.exitCh:
		err = c.exitErr
	case <-st.ended:
		err = ErrInputClosed
		if !errors.Is(st.endErr, io.EOF) && !errors.Is(st.endErr, io.ErrUnexpectedEOF) && !errors.Is(st.endErr, os.ErrClosed) {
			err = fmt.Errorf("%w: %w", ErrInputClosed, st.endErr)
		}
		if c.isShutdown() {
			err = nil
		}
	case <-st.broken:
		err = ErrOutputBroken
	case <-cctx.Done(): // ctx, or the client ended (its parent process died)
		err = cctx.Err()
	}
	c.teardown()
	if h := s.opts.OnDisconnect; h != nil {
		h(c)
	}
	_ = st.Close()
	select {
	case <-conn.Done():
	case <-time.After(100 * time.Millisecond):
		// The read loop is blocked on an input that cannot be closed (a
		// blocking stdin); the process is about to exit anyway.
	}
	return err
}
