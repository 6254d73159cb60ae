package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The write-content exemption keeps exactly params.content of the named
// request; the same value anywhere else, or in a notification, is masked.
func TestExemptParams(t *testing.T) {
	const secret = "hunter2hunter2hunter2"
	r := NewRedactor([]string{"MY_SERVICE_API_KEY=" + secret})
	for _, tc := range []struct {
		body string
		kept bool
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"fs/writeTextFile","params":{"path":"/a","content":"k=` + secret + `"}}`, true},
		{`{"jsonrpc":"2.0","method":"fs/writeTextFile","params":{"path":"/a","content":"k=` + secret + `"}}`, false},
		{`{"jsonrpc":"2.0","id":3,"method":"fs/writeTextFile","params":{"path":"/a","other":"k=` + secret + `"}}`, false},
		{`{"jsonrpc":"2.0","id":3,"method":"other","params":{"content":"fs/writeTextFile ` + secret + `"}}`, false},
	} {
		out, err := r.RedactJSON([]byte(tc.body), ExemptParams([]byte(tc.body), "fs/writeTextFile", true, "content"))
		if err != nil || strings.Contains(string(out), secret) != tc.kept {
			t.Errorf("%s → %s (%v), kept want %v", tc.body, out, err, tc.kept)
		}
	}
}

type failMask struct{}

func (failMask) RedactJSON([]byte, func([]string) bool) ([]byte, error) {
	return nil, ErrNotJSON
}

// A message that cannot be masked is replaced (a response) or refused
// (anything else); its bytes never come back.
func TestMaskMessageFallback(t *testing.T) {
	replace := func(id json.RawMessage, reason string) ([]byte, error) {
		return []byte(`{"id":` + string(id) + `,"error":"` + reason + `"}`), nil
	}
	out, err := MaskMessage(failMask{}, []byte(`{"jsonrpc":"2.0","id":7,"result":{"text":"poison"}}`), nil, replace)
	if err != nil || !strings.HasPrefix(string(out), `{"id":7,`) || strings.Contains(string(out), "poison") {
		t.Fatalf("response: %s, %v", out, err)
	}
	out, err = MaskMessage(failMask{}, []byte(`{"jsonrpc":"2.0","method":"n","params":{"text":"poison"}}`), nil, replace)
	if !errors.Is(err, ErrUnmaskable) || out != nil {
		t.Fatalf("notification: %s, %v", out, err)
	}
}
