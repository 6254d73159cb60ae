package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// TestCancelRequest: a long request does not block the read loop, and
// $/cancelRequest cancels its context and answers -32800.
func TestCancelRequest(t *testing.T) {
	started := make(chan struct{})
	sawCancel := make(chan error, 1)
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/block", func(ctx context.Context, _ *rpc.Client, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		sawCancel <- ctx.Err()
		return nil, ctx.Err()
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	ctx := rpctest.Ctx(t)
	p, err := c.Start("test/block", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	rpctest.Echo(t, c, "served while another request runs")
	if err := c.Cancel(p.ID); err != nil {
		t.Fatal(err)
	}
	rpctest.WantCode(t, p.Wait(ctx, nil), rpc.CodeRequestCancelled)
	if err := <-sawCancel; !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ctx = %v", err)
	}
	// Cancelling a finished or unknown request is harmless.
	_ = c.Cancel(p.ID)
	_ = c.Cancel(12345)
	rpctest.Echo(t, c, "after cancel")
}

// TestCancelIgnoringHandler: a handler that ignores its context still lets
// the client have its -32800 at once.
func TestCancelIgnoringHandler(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/stubborn", func(context.Context, *rpc.Client, json.RawMessage) (any, error) {
		close(started)
		<-release
		return "late", nil
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	p, _ := c.Start("test/stubborn", nil)
	<-started
	_ = c.Cancel(p.ID)
	rpctest.WantCode(t, p.Wait(rpctest.Ctx(t), nil), rpc.CodeRequestCancelled)
	close(release)
	rpctest.Echo(t, c, "ok")
}

// TestManyConcurrentRequests: requests overlap and each gets its own answer.
func TestManyConcurrentRequests(t *testing.T) {
	gate := make(chan struct{})
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/wait", func(ctx context.Context, _ *rpc.Client, params json.RawMessage) (any, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return params, nil
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	var ps []*struct {
		n    int
		wait func(context.Context, any) error
	}
	for i := range 20 {
		p, err := c.Start("test/wait", map[string]int{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, &struct {
			n    int
			wait func(context.Context, any) error
		}{i, p.Wait})
	}
	rpctest.Echo(t, c, "not blocked by 20 waiting requests")
	close(gate)
	for _, p := range ps {
		var res struct{ N int }
		if err := p.wait(rpctest.Ctx(t), &res); err != nil || res.N != p.n {
			t.Fatalf("request %d answered %d, %v", p.n, res.N, err)
		}
	}
}

// TestServerCallWhileNotificationsFlow: a handler asks the client (a
// server→client request) while notifications keep arriving; the client
// answers only after it has seen them, so a blocked writer or reader would
// deadlock this test.
func TestServerCallWhileNotificationsFlow(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/ask", func(ctx context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if c.Notify("test/tick", map[string]int{"i": i}) != nil {
					return
				}
			}
		}()
		var res struct {
			Decision string `json:"decision"`
		}
		if err := c.Call(ctx, "ui/requestApproval", map[string]any{"toolCallId": "call_1", "toolName": "write"}, &res); err != nil {
			return nil, err
		}
		return res.Decision, nil
	})
	c := rpctest.Serve(t, srv)
	c.Handle("ui/requestApproval", func(ctx context.Context, params json.RawMessage) (any, error) {
		if err := c.WaitFor(ctx, func() bool { return len(c.Notifications("test/tick")) >= 50 }); err != nil {
			return nil, err
		}
		return map[string]string{"decision": "approve"}, nil
	})
	rpctest.Init(t, c, map[string]any{"capabilities": map[string]any{"ui": map[string]any{"approvals": true}}})
	var decision string
	if err := c.Call(rpctest.Ctx(t), "test/ask", nil, &decision); err != nil || decision != "approve" {
		t.Fatalf("decision = %q, %v", decision, err)
	}
	if n := len(c.Notifications("test/tick")); n < 50 {
		t.Fatalf("only %d notifications before the answer", n)
	}
}

func TestServerCallErrors(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{})
	results := make(chan error, 1)
	srv.Register("test/ask", func(ctx context.Context, c *rpc.Client, params json.RawMessage) (any, error) {
		var p struct{ Method string }
		_ = json.Unmarshal(params, &p)
		err := c.Call(ctx, p.Method, map[string]any{"id": "q1"}, nil)
		results <- err
		return nil, nil
	})
	c := rpctest.Serve(t, srv)
	c.Handle("fs/readTextFile", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("no buffer")
	})
	rpctest.Init(t, c, map[string]any{"capabilities": map[string]any{"fs": map[string]any{"readTextFile": true}}})
	ctx := rpctest.Ctx(t)

	// Not declared: refused without asking the client.
	_ = c.Call(ctx, "test/ask", map[string]string{"method": "ui/requestApproval"}, nil)
	if err := <-results; !errors.Is(err, rpc.ErrNoCapability) {
		t.Fatalf("undeclared capability: %v", err)
	}
	// The client answers an error: it comes back as *rpc.Error.
	_ = c.Call(ctx, "test/ask", map[string]string{"method": "fs/readTextFile"}, nil)
	var e *rpc.Error
	if err := <-results; !errors.As(err, &e) || e.Code != rpc.CodeInternalError || e.Message != "no buffer" {
		t.Fatalf("client error: %v", err)
	}
	// Not a capability-gated method and no handler on the client.
	_ = c.Call(ctx, "test/ask", map[string]string{"method": "custom/thing"}, nil)
	if err := <-results; !errors.As(err, &e) || e.Code != rpc.CodeMethodNotFound {
		t.Fatalf("unanswered method: %v", err)
	}
}

// TestServerCallCancelled: when the handler's request is cancelled while it
// waits on the client, the client is told with $/cancelRequest.
func TestServerCallCancelled(t *testing.T) {
	asked := make(chan struct{})
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/ask", func(ctx context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
		return nil, c.Call(ctx, "ui/askQuestion", map[string]any{"id": "q1"}, nil)
	})
	c := rpctest.Serve(t, srv)
	c.Handle("ui/askQuestion", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	rpctest.Init(t, c, map[string]any{"capabilities": map[string]any{"ui": map[string]any{"questions": true}}})
	p, _ := c.Start("test/ask", nil)
	<-asked
	_ = c.Cancel(p.ID)
	rpctest.WantCode(t, p.Wait(rpctest.Ctx(t), nil), rpc.CodeRequestCancelled)
	if err := c.WaitFor(rpctest.Ctx(t), func() bool { return len(c.Notifications("$/cancelRequest")) == 1 }); err != nil {
		t.Fatalf("the client was not sent $/cancelRequest: %v", err)
	}
}
