package harness

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pi-lsp/pi-lsp/tools"
)

// The lines go into the details beside the tool's own fields; details that
// are not an object are left alone; no lines, no change.
func TestWithDiagnosticsDetails(t *testing.T) {
	lines := []string{"a.go:5:2: error: undefined: frobnicate (compiler)"}
	res := withDiagnosticsDetails(tools.Result{Details: json.RawMessage(`{"path":"/w/a.go","unifiedDiff":"d"}`)}, lines)
	var got struct {
		Path        string   `json:"path"`
		UnifiedDiff string   `json:"unifiedDiff"`
		Diagnostics []string `json:"diagnostics"`
	}
	if err := json.Unmarshal(res.Details, &got); err != nil {
		t.Fatal(err)
	}
	if got.Path != "/w/a.go" || got.UnifiedDiff != "d" || !reflect.DeepEqual(got.Diagnostics, lines) {
		t.Fatalf("details: %s", res.Details)
	}
	if r := withDiagnosticsDetails(tools.Result{}, lines); string(r.Details) != `{"diagnostics":["a.go:5:2: error: undefined: frobnicate (compiler)"]}` {
		t.Fatalf("no details before: %s", r.Details)
	}
	if r := withDiagnosticsDetails(tools.Result{Details: json.RawMessage(`[1]`)}, lines); string(r.Details) != `[1]` {
		t.Fatalf("array details changed: %s", r.Details)
	}
	if r := withDiagnosticsDetails(tools.Result{Details: json.RawMessage(`{"a":1}`)}, nil); string(r.Details) != `{"a":1}` {
		t.Fatalf("no lines changed the details: %s", r.Details)
	}
}
