package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// conn is a server serving one rpctest client over pipes.
type conn struct {
	*rpctest.Client
	srv  *rpc.Server
	done chan error
}

// serve starts srv.Serve over pipes and connects a client. The test fails
// if Serve has not returned shortly after the cleanup closes the input.
func serve(t *testing.T, srv *rpc.Server) *conn {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), sr, sw) }()
	c := &conn{Client: rpctest.New(cr, cw), srv: srv, done: done}
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

// wait returns Serve's result.
func (c *conn) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

func newServer(opts rpc.Options) *rpc.Server {
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

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func initialize(t *testing.T, c *conn, params map[string]any) {
	t.Helper()
	if params == nil {
		params = map[string]any{"processId": 1, "rootUri": "file:///tmp/p", "capabilities": map[string]any{}}
	}
	if _, err := c.Initialize(ctxT(t), params); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

func echo(t *testing.T, c *conn, text string) {
	t.Helper()
	var res struct{ Text string }
	if err := c.Call(ctxT(t), "test/echo", map[string]any{"text": text}, &res); err != nil || res.Text != text {
		t.Fatalf("echo %q = %q, %v", text, res.Text, err)
	}
}

// rpcErr asserts err is a JSON-RPC error with code.
func rpcErr(t *testing.T, err error, code int) *rpctest.Error {
	t.Helper()
	var e *rpctest.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want a JSON-RPC error %d", err, code)
	}
	if e.Code != code {
		t.Fatalf("got code %d (%s), want %d", e.Code, e.Message, code)
	}
	return e
}
