package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

func TestLifecycle(t *testing.T) {
	var got rpc.InitializeParams
	var shutdowns atomic.Int32
	srv := rpctest.EchoServer(rpc.Options{
		OnInitialize: func(_ context.Context, _ *rpc.Client, p rpc.InitializeParams) error {
			got = p
			return nil
		},
		OnShutdown: func(context.Context, *rpc.Client) error { shutdowns.Add(1); return nil },
	})
	c := rpctest.Serve(t, srv)
	ctx := rpctest.Ctx(t)

	rpctest.WantCode(t, c.Call(ctx, "test/echo", map[string]any{"text": "x"}, nil), rpc.CodeServerNotInitialized)
	rpctest.WantCode(t, c.Call(ctx, "shutdown", nil, nil), rpc.CodeServerNotInitialized)

	var res rpc.InitializeResult
	err := c.Call(ctx, "initialize", map[string]any{
		"processId": 4242, "clientInfo": map[string]any{"name": "vscode", "version": "1.99"}, "rootUri": "file:///home/u/proj",
		"capabilities":          map[string]any{"ui": map[string]any{"approvals": true, "questions": true, "planApproval": false}, "fs": map[string]any{"readTextFile": true}, "harnessEvents": true},
		"initializationOptions": map[string]any{"model": "fake/m1", "session": "continue"},
	}, &res)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "pi-lsp" || res.ServerInfo.Version != "test" || res.Capabilities.DisplayState.Diffs {
		t.Fatalf("result = %+v", res)
	}
	if !slices.Equal(res.Capabilities.Methods, []string{"test/echo"}) {
		t.Fatalf("methods = %v", res.Capabilities.Methods)
	}
	if got.ProcessID != 4242 || got.ClientInfo.Name != "vscode" || got.RootPath() != "/home/u/proj" ||
		!got.Capabilities.UI.Approvals || got.Capabilities.UI.PlanApproval || !got.Capabilities.FS.ReadTextFile || !got.Capabilities.HarnessEvents {
		t.Fatalf("params = %+v", got)
	}
	if o, err := got.Options(); err != nil || o.Model != "fake/m1" || o.Session != "continue" {
		t.Fatalf("options = %+v, %v", o, err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	rpctest.WantCode(t, c.Call(ctx, "initialize", map[string]any{}, nil), rpc.CodeInvalidRequest)
	rpctest.Echo(t, c, "hello")

	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if shutdowns.Load() != 1 {
		t.Fatalf("OnShutdown ran %d times", shutdowns.Load())
	}
	e := rpctest.WantCode(t, c.Call(ctx, "test/echo", map[string]any{"text": "x"}, nil), rpc.CodeInvalidRequest)
	if !strings.Contains(e.Message, "shut down") {
		t.Fatalf("message = %q", e.Message)
	}
	if err := c.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(t); err != nil || rpc.ExitCode(err) != 0 {
		t.Fatalf("Serve = %v (exit code %d), want nil (0)", err, rpc.ExitCode(err))
	}
}

func TestExitAndInputEnd(t *testing.T) {
	tests := []struct {
		name     string
		shutdown bool
		end      func(c *rpctest.Conn) error
		want     error
		code     int
	}{
		{"exit without shutdown", false, func(c *rpctest.Conn) error { return c.Notify("exit", nil) }, rpc.ErrExitWithoutShutdown, 1},
		{"input closed", false, func(c *rpctest.Conn) error { return c.Close() }, rpc.ErrInputClosed, 0},
		{"input closed after shutdown", true, func(c *rpctest.Conn) error { return c.Close() }, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rpctest.Serve(t, rpctest.EchoServer(rpc.Options{}))
			rpctest.Init(t, c, nil)
			if tt.shutdown {
				if err := c.Call(rpctest.Ctx(t), "shutdown", nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.end(c); err != nil {
				t.Fatal(err)
			}
			err := c.Wait(t)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) || rpc.ExitCode(err) != tt.code {
				t.Fatalf("Serve = %v (exit code %d), want %v (%d)", err, rpc.ExitCode(err), tt.want, tt.code)
			}
			// The server closed its output: the client sees the end.
			<-c.Done()
		})
	}
}

func TestContextCancelEndsServe(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	defer cw.Close()
	go func() { _, _ = io.Copy(io.Discard, cr) }()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, sr, sw) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || rpc.ExitCode(err) != 0 {
		t.Fatalf("Serve = %v", err)
	}
}

func TestErrors(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/fail", func(_ context.Context, _ *rpc.Client, params json.RawMessage) (any, error) {
		var p struct{ Kind string }
		_ = json.Unmarshal(params, &p)
		switch p.Kind {
		case "busy":
			return nil, rpc.ErrBusy(harness.PhaseTurn)
		case "locked":
			return nil, fmt.Errorf("session/open /x.jsonl: %w", rpc.ErrLocked(77))
		case "nomodel":
			return nil, rpc.ErrNoModel("set --model or models.json")
		case "notfound":
			return nil, rpc.ErrNotFound("entry a1b2c3d4")
		case "panic":
			panic("boom")
		}
		return nil, errors.New("disk on fire")
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	ctx := rpctest.Ctx(t)
	tests := []struct {
		kind string
		code int
		msg  string
		data string
	}{
		{"busy", rpc.CodeBusy, `phase "turn"`, `{"phase":"turn"}`},
		{"locked", rpc.CodeLocked, "session/open /x.jsonl: session is locked by another pi-lsp process (pid 77)", `{"pid":77}`},
		{"nomodel", rpc.CodeNoModel, "no usable model", `{"hint":"set --model or models.json"}`},
		{"notfound", rpc.CodeNotFound, "not found: entry a1b2c3d4", `{"what":"entry a1b2c3d4"}`},
		{"panic", rpc.CodeInternalError, "panicked: boom", ""},
		{"other", rpc.CodeInternalError, "disk on fire", ""},
	}
	for _, tt := range tests {
		e := rpctest.WantCode(t, c.Call(ctx, "test/fail", map[string]any{"kind": tt.kind}, nil), tt.code)
		if !strings.Contains(e.Message, tt.msg) || string(e.Data) != tt.data {
			t.Errorf("%s: message %q data %s; want %q %s", tt.kind, e.Message, e.Data, tt.msg, tt.data)
		}
	}
	e := rpctest.WantCode(t, c.Call(ctx, "no/such", nil, nil), rpc.CodeMethodNotFound)
	if !strings.Contains(e.Message, "no/such") {
		t.Errorf("message = %q", e.Message)
	}
	for _, params := range []any{map[string]any{"text": 5}, []any{1}, "text"} {
		e := rpctest.WantCode(t, c.Call(ctx, "test/echo", params, nil), rpc.CodeInvalidParams)
		if !strings.Contains(e.Message, "invalid params") {
			t.Errorf("message = %q", e.Message)
		}
	}
	e = rpctest.WantCode(t, c.Call(ctx, "test/echo", map[string]any{"text": 5}, nil), rpc.CodeInvalidParams)
	if !strings.Contains(e.Message, `"text" must be a string, not number`) {
		t.Errorf("message = %q", e.Message)
	}
	rpctest.Echo(t, c, "still serving")
}

func TestBadInitialize(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{OnInitialize: func(_ context.Context, _ *rpc.Client, p rpc.InitializeParams) error {
		if p.RootURI == "" {
			return rpc.ErrInvalidParams("rootUri is required")
		}
		return nil
	}})
	c := rpctest.Serve(t, srv)
	ctx := rpctest.Ctx(t)
	rpctest.WantCode(t, c.Call(ctx, "initialize", map[string]any{"processId": "x"}, nil), rpc.CodeInvalidParams)
	rpctest.WantCode(t, c.Call(ctx, "initialize", map[string]any{"initializationOptions": map[string]any{"logLevel": "loud"}}, nil), rpc.CodeInvalidParams)
	rpctest.WantCode(t, c.Call(ctx, "initialize", map[string]any{}, nil), rpc.CodeInvalidParams)
	// A failed initialize leaves the server uninitialized; a good one works.
	rpctest.WantCode(t, c.Call(ctx, "test/echo", nil, nil), rpc.CodeServerNotInitialized)
	rpctest.Init(t, c, nil)
	rpctest.Echo(t, c, "ok")
}

func TestRegisterRejectsLifecycleNames(t *testing.T) {
	for _, m := range []string{"initialize", "shutdown", "exit", "initialized", "$/cancelRequest"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", m)
				}
			}()
			rpctest.EchoServer(rpc.Options{}).Register(m, func(context.Context, *rpc.Client, json.RawMessage) (any, error) { return nil, nil })
		}()
	}
}

func TestNotifications(t *testing.T) {
	got := make(chan string, 4)
	srv := rpctest.EchoServer(rpc.Options{})
	srv.Register("test/note", func(_ context.Context, _ *rpc.Client, params json.RawMessage) (any, error) {
		got <- string(params)
		return nil, errors.New("ignored for a notification")
	})
	c := rpctest.Serve(t, srv)
	_ = c.Notify("test/note", map[string]any{"before": "init"}) // dropped: not initialized
	rpctest.Init(t, c, nil)
	_ = c.Notify("test/note", map[string]any{"n": 1})
	_ = c.Notify("$/setTrace", map[string]any{"value": "off"})
	_ = c.Notify("unknown/thing", nil)
	if p := <-got; p != `{"n":1}` {
		t.Fatalf("notification params = %s", p)
	}
	rpctest.Echo(t, c, "after notifications")
	if len(got) != 0 {
		t.Fatalf("a notification sent before initialize was handled")
	}
}
