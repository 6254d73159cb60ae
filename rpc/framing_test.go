package rpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// TestMalformedInput writes each bad input, then a good request: the bad
// input is answered with the right error and the good request is served.
func TestMalformedInput(t *testing.T) {
	good := func(text string) string {
		return string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":"` + text + `","method":"test/echo","params":{"text":"` + text + `"}}`)))
	}
	tests := []struct {
		name string
		raw  string
		code int
		id   string // the id the error echoes
		msg  string // a part of the error message
	}{
		{"body not JSON", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0",`))), rpc.CodeParseError, "null", "not valid JSON"},
		{"body is garbage text", string(rpctest.Frame([]byte(`hello`))), rpc.CodeParseError, "null", "not valid JSON"},
		{"Content-Length not a number", "Content-Length: abc\r\n\r\n{}", rpc.CodeParseError, "null", `invalid Content-Length "abc"`},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n{}", rpc.CodeParseError, "null", "invalid Content-Length"},
		{"missing Content-Length", "Content-Type: application/json\r\n\r\n{\"x\":1}", rpc.CodeParseError, "null", "missing Content-Length"},
		{"header line without colon", "hello world\r\n", rpc.CodeParseError, "null", "malformed header line"},
		{"JSON without any header", `{"jsonrpc":"2.0","id":9,"method":"test/echo"}`, rpc.CodeParseError, "null", "malformed header line"},
		{"header line too long", strings.Repeat("X", 9000) + "\r\n", rpc.CodeParseError, "null", "longer than 8 KiB"},
		{"a number", string(rpctest.Frame([]byte(`42`))), rpc.CodeInvalidRequest, "null", "got a JSON number"},
		{"a batch", string(rpctest.Frame([]byte(`[{"jsonrpc":"2.0","id":1,"method":"test/echo"}]`))), rpc.CodeInvalidRequest, "null", "batches are not supported"},
		{"wrong version", string(rpctest.Frame([]byte(`{"jsonrpc":"1.0","id":7,"method":"test/echo"}`))), rpc.CodeInvalidRequest, "7", `"jsonrpc" must be "2.0"`},
		{"no version", string(rpctest.Frame([]byte(`{"id":"s","method":"test/echo"}`))), rpc.CodeInvalidRequest, `"s"`, `"jsonrpc" must be "2.0"`},
		{"fractional id", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"test/echo"}`))), rpc.CodeInvalidRequest, "null", `"id" must be a string or an integer`},
		{"method not a string", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":3,"method":5}`))), rpc.CodeInvalidRequest, "3", `"method" must be a string`},
		{"no method", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":4}`))), rpc.CodeInvalidRequest, "4", `no "method"`},
		{"method and result", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":5,"method":"x","result":1}`))), rpc.CodeInvalidRequest, "5", "not both"},
		{"oversized", string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":6,"method":"test/echo","params":{"text":"` + strings.Repeat("a", 5000) + `"}}`))), rpc.CodeInvalidRequest, "null", "exceeds the limit of 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rpctest.Serve(t, rpctest.EchoServer(rpc.Options{MaxFrame: 4096}))
			rpctest.Init(t, c, nil)
			if err := c.WriteRaw([]byte(tt.raw)); err != nil {
				t.Fatal(err)
			}
			if err := c.WriteRaw([]byte(good("after"))); err != nil {
				t.Fatal(err)
			}
			ctx := rpctest.Ctx(t)
			var un []rpctest.Response
			// The good request's answer is unmatched too (written raw).
			if err := c.WaitFor(ctx, func() bool { un = c.Unmatched(); return len(un) >= 2 }); err != nil {
				t.Fatalf("waiting for two responses: %v (got %+v)", err, c.Unmatched())
			}
			bad, ok := un[0], un[1]
			if bad.Error == nil || bad.Error.Code != tt.code || string(bad.ID) != tt.id || !strings.Contains(bad.Error.Message, tt.msg) {
				t.Errorf("error response = id %s %+v; want code %d id %s message ~%q", bad.ID, bad.Error, tt.code, tt.id, tt.msg)
			}
			if ok.Error != nil || string(ok.ID) != `"after"` || !strings.Contains(string(ok.Result), `"after"`) {
				t.Errorf("good request after it = %s %s %+v", ok.ID, ok.Result, ok.Error)
			}
			rpctest.Echo(t, c, "still serving")
		})
	}
}

// TestShortBodyRecovers: a Content-Length larger than the body swallows the
// start of the next frame; the server reports it and finds the frame after.
func TestShortBodyRecovers(t *testing.T) {
	c := rpctest.Serve(t, rpctest.EchoServer(rpc.Options{}))
	rpctest.Init(t, c, nil)
	frame := func(id string) string {
		return string(rpctest.Frame([]byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"test/echo","params":{"text":"` + id + `"}}`)))
	}
	raw := "Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\"}" + frame("lost") + frame("found")
	if err := c.WriteRaw([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	var un []rpctest.Response
	err := c.WaitFor(rpctest.Ctx(t), func() bool {
		un = c.Unmatched()
		for _, r := range un {
			if string(r.ID) == `"found"` {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the frame after the damage was not served: %v %+v", err, un)
	}
	if un[0].Error == nil || un[0].Error.Code != rpc.CodeParseError {
		t.Fatalf("first response = %+v", un[0])
	}
	rpctest.Echo(t, c, "still serving")
}

// TestLargeFrameWithinLimit: a frame bigger than the read buffer but under
// MaxFrame is served.
func TestLargeFrameWithinLimit(t *testing.T) {
	c := rpctest.Serve(t, rpctest.EchoServer(rpc.Options{}))
	rpctest.Init(t, c, nil)
	rpctest.Echo(t, c, strings.Repeat("é", 300_000))
}

// TestResponseToUnknownID: a stray response is ignored without an answer.
func TestResponseToUnknownID(t *testing.T) {
	c := rpctest.Serve(t, rpctest.EchoServer(rpc.Options{}))
	rpctest.Init(t, c, nil)
	for _, body := range []string{`{"jsonrpc":"2.0","id":999,"result":{}}`, `{"jsonrpc":"2.0","id":{},"result":1}`} {
		if err := c.WriteRaw(rpctest.Frame([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	rpctest.Echo(t, c, "ok")
	if un := c.Unmatched(); len(un) != 0 {
		b, _ := json.Marshal(un)
		t.Fatalf("stray responses were answered: %s", b)
	}
}
