package attach

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// The peer-credential check refuses a peer of another uid and accepts our
// own.
func TestCheckPeerRefusesAnotherUID(t *testing.T) {
	if err := checkPeer(1000, 1000); err != nil {
		t.Fatalf("own uid refused: %v", err)
	}
	err := checkPeer(1001, 1000)
	if err == nil || !strings.Contains(err.Error(), "uid 1001") || !strings.Contains(err.Error(), "uid 1000") {
		t.Fatalf("another uid: %v", err)
	}
}

// On a real socket pair the peer is this process's user.
func TestPeerUIDOfAUnixSocket(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", dir+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", dir+"/s")
		if err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := CheckPeerConn(nc); err != nil {
		t.Fatalf("own process refused: %v", err)
	}
}

// The owner's refusal reaches the attacher as an *Error, and an owner that
// answers another version is refused by the attacher too.
func TestHandshakeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(id jsonrpc2.ID) *jsonrpc2.Response
		want   string
	}{
		{"owner refuses", func(id jsonrpc2.ID) *jsonrpc2.Response {
			return jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: rpc.CodeInvalidRequest, Message: "attach refused: version 7"})
		}, "attach refused: version 7"},
		{"owner speaks another version", func(id jsonrpc2.ID) *jsonrpc2.Response {
			res, _ := json.Marshal(protocol.AttachResult{ProtocolVersion: 9, PID: 77})
			return jsonrpc2.NewResponse(id, res, nil)
		}, "version 9, this pi-lsp speaks version 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer a.Close()
			go func() {
				defer b.Close()
				body, err := rpc.ReadFrame(b, 0)
				if err != nil {
					return
				}
				id, p, perr := ParseAttach(body)
				if perr != nil || p.ProtocolVersion != ProtocolVersion {
					return
				}
				_ = WriteFrame(b, tc.answer(id))
			}()
			_, _, err := Handshake(a, protocol.AttachParams{ProtocolVersion: ProtocolVersion, PID: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzParseAttach: the first message on a socket never panics, and is
// accepted only as the attach request.
func FuzzParseAttach(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":0,"method":"$/pi-lsp/attach","params":{"protocolVersion":1,"pid":3,"path":"/s.jsonl"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"$/pi-lsp/attach"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _, err := ParseAttach(body)
		if err == nil && !strings.Contains(string(body), "attach") {
			t.Fatalf("accepted %q", body)
		}
	})
}
