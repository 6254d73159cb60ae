package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
	"github.com/pi-lsp/pi-lsp/tools"
)

const egressSecret = "egress-secret-31337"

// TestEgressMasksEveryKindOfMessage: a response, a notification, a
// server→client request and an error response all pass the one egress
// step; only the content of fs/writeTextFile is sent as it is.
func TestEgressMasksEveryKindOfMessage(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{Masker: tools.NewRedactor([]string{"MY_SERVICE_API_KEY=" + egressSecret})})
	srv.Register("test/leak", func(ctx context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
		if err := c.Notify("test/note", map[string]string{"text": "note " + egressSecret}); err != nil {
			return nil, err
		}
		var ans struct{ Answer string }
		if err := c.Call(ctx, "test/ask", map[string]string{"question": "ask " + egressSecret}, &ans); err != nil {
			return nil, err
		}
		if err := c.Call(ctx, "fs/writeTextFile", map[string]string{"path": "/w/" + egressSecret, "content": "KEY=" + egressSecret}, nil); err != nil {
			return nil, err
		}
		return map[string]any{"args": `{"command":"echo ` + egressSecret + `"}`, "answer": ans.Answer}, nil
	})
	srv.Register("test/fail", func(context.Context, *rpc.Client, json.RawMessage) (any, error) {
		return nil, errors.New("provider said: bad key " + egressSecret)
	})
	c := rpctest.Serve(t, srv)
	var asked, wrote json.RawMessage
	c.Handle("test/ask", func(_ context.Context, p json.RawMessage) (any, error) {
		asked = p
		return map[string]string{"answer": "the client's own " + egressSecret}, nil
	})
	c.Handle("fs/writeTextFile", func(_ context.Context, p json.RawMessage) (any, error) {
		wrote = p
		return map[string]any{}, nil
	})
	rpctest.Init(t, c, map[string]any{"processId": 1, "capabilities": map[string]any{"fs": map[string]any{"writeTextFile": true}}})
	var res struct{ Args, Answer string }
	if err := c.Call(rpctest.Ctx(t), "test/leak", nil, &res); err != nil {
		t.Fatal(err)
	}
	err := c.Call(rpctest.Ctx(t), "test/fail", nil, nil)
	if e := rpctest.WantCode(t, err, rpc.CodeInternalError); e.Message != "provider said: bad key ••••••" {
		t.Fatalf("error message %q", e.Message)
	}
	if !json.Valid([]byte(res.Args)) || res.Args != `{"command":"echo ••••••"}` || res.Answer != "the client's own ••••••" {
		t.Fatalf("result %+v", res)
	}
	if string(asked) != `{"question":"ask ••••••"}` {
		t.Fatalf("server→client request params %s", asked)
	}
	if string(wrote) != `{"content":"KEY=`+egressSecret+`","path":"/w/••••••"}` {
		t.Fatalf("fs/writeTextFile params %s: the content must be exempt, the path not", wrote)
	}
	notes := c.Notifications("test/note")
	if len(notes) != 1 || string(notes[0].Params) != `{"text":"note ••••••"}` {
		t.Fatalf("notifications %v", notes)
	}
	// The only place the secret may appear is the file content.
	got := c.Received()
	if n := bytes.Count(got, []byte(egressSecret)); n != 1 {
		t.Fatalf("the secret appears %d times on the wire, want once (fs/writeTextFile content):\n%s", n, got)
	}
}

// failingMasker fails on every document carrying "poison".
type failingMasker struct{}

func (failingMasker) RedactJSON(doc []byte, _ func([]string) bool) ([]byte, error) {
	if bytes.Contains(doc, []byte("poison")) {
		return nil, errors.New("cannot mask")
	}
	return doc, nil
}

// TestEgressNeverFallsBackToRaw: when masking fails, a response becomes an
// error response and a notification is dropped; the connection lives on.
func TestEgressNeverFallsBackToRaw(t *testing.T) {
	srv := rpctest.EchoServer(rpc.Options{Masker: failingMasker{}})
	srv.Register("test/bad", func(_ context.Context, c *rpc.Client, _ json.RawMessage) (any, error) {
		_ = c.Notify("test/note", map[string]string{"text": "poison"})
		return map[string]string{"text": "poison"}, nil
	})
	c := rpctest.Serve(t, srv)
	rpctest.Init(t, c, nil)
	err := c.Call(rpctest.Ctx(t), "test/bad", nil, nil)
	if e := rpctest.WantCode(t, err, rpc.CodeInternalError); !strings.Contains(e.Message, "could not be masked") {
		t.Fatalf("error %q", e.Message)
	}
	if len(c.Notifications("test/note")) != 0 {
		t.Fatal("the unmaskable notification was sent")
	}
	if bytes.Contains(c.Received(), []byte("poison")) {
		t.Fatalf("raw bytes went out: %s", c.Received())
	}
	rpctest.Echo(t, c, "still serving")
}
