package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/tools"
)

// The hand-over's queue passes egress as typed; the same value anywhere
// else is masked.
func TestHandoverIsExemptFromMasking(t *testing.T) {
	const secret = "hunter2hunter2hunter2"
	m := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=" + secret})
	params, _ := json.Marshal(map[string]any{"successor": 1, "followUp": []string{"deploy with " + secret}})
	body, err := egress(m, jsonrpc2.NewNotification(MethodHandover, params))
	if err != nil || !strings.Contains(string(body), secret) {
		t.Fatalf("hand-over masked: %s (%v)", body, err)
	}
	body, err = egress(m, jsonrpc2.NewNotification("ui/resolved", params))
	if err != nil || strings.Contains(string(body), secret) {
		t.Fatalf("ui/resolved not masked: %s (%v)", body, err)
	}
}
