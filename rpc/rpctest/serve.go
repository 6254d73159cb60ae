package rpctest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/rpc"
)

// Conn is a server serving one Client over pipes, for the unit tests of a
// package built on rpc.
type Conn struct {
	*Client
	Srv    *rpc.Server
	Result chan error // Serve's result
}

// Serve starts srv.Serve over pipes and connects a client. The test fails
// if Serve has not returned shortly after the cleanup closes the input.
func Serve(t testing.TB, srv *rpc.Server) *Conn {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), sr, sw) }()
	c := &Conn{Client: New(cr, cw), Srv: srv, Result: done}
	t.Cleanup(func() {
		_ = c.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after the input closed")
		}
	})
	return c
}

// Wait returns Serve's result.
func (c *Conn) Wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-c.Result:
		c.Result <- err // for the cleanup
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

// EchoServer is rpc.NewServer(opts) named "pi-lsp" "test", logging nowhere,
// with a test/echo method that answers {"text"} with its params' text.
func EchoServer(opts rpc.Options) *rpc.Server {
	if opts.Name == "" {
		opts.Name, opts.Version = "pi-lsp", "test"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := rpc.NewServer(opts)
	s.Register("test/echo", func(_ context.Context, _ *rpc.Client, params json.RawMessage) (any, error) {
		var p struct {
			Text string `json:"text"`
		}
		if err := rpc.DecodeParams(params, &p); err != nil {
			return nil, err
		}
		return map[string]string{"text": p.Text}, nil
	})
	return s
}

// Ctx is a context that ends 20 s from now or with the test.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Init sends initialize with params (a minimal client's when nil).
func Init(t testing.TB, c *Conn, params map[string]any) {
	t.Helper()
	if params == nil {
		params = map[string]any{"processId": 1, "rootUri": "file:///tmp/p", "capabilities": map[string]any{}}
	}
	if _, err := c.Initialize(Ctx(t), params); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// Echo calls test/echo and fails unless text comes back.
func Echo(t testing.TB, c *Conn, text string) {
	t.Helper()
	var res struct{ Text string }
	if err := c.Call(Ctx(t), "test/echo", map[string]any{"text": text}, &res); err != nil || res.Text != text {
		t.Fatalf("echo %q = %q, %v", text, res.Text, err)
	}
}

// WantCode asserts err is a JSON-RPC error with code.
func WantCode(t testing.TB, err error, code int) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a JSON-RPC error %d", err, code)
	}
	if e.Code != code {
		t.Fatalf("got code %d (%s), want %d", e.Code, e.Message, code)
	}
	return e
}
