package attach

import (
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/protocol"
)

// An attacher of another protocol version is refused with both versions
// named.
func TestAttachVersionMismatchNamesBoth(t *testing.T) {
	hb := &Hub{}
	e := hb.checkAttach(protocol.AttachParams{ProtocolVersion: ProtocolVersion + 1, PID: 4242})
	if e == nil {
		t.Fatal("a different version was accepted")
	}
	for _, want := range []string{"version 1", "version 2", "pid 4242"} {
		if !strings.Contains(e.Message, want) {
			t.Fatalf("%q does not name %q", e.Message, want)
		}
	}
}
