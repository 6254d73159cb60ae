package display_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/llm"
)

// A reopened session's tool item shows the diagnostics lines its result's
// details kept, beside the write's diff; a result without them has none.
func TestHistoryRebuildsDiagnostics(t *testing.T) {
	lines := []string{"a.ts:2:7: error: Type 'string' is not assignable to type 'number'. (ts)"}
	details := json.RawMessage(`{"diagnostics":["a.ts:2:7: error: Type 'string' is not assignable to type 'number'. (ts)"],"path":"/w/a.ts","unifiedDiff":"--- a/a.ts\n+++ b/a.ts\n@@ -0,0 +1 @@\n+x\n"}`)
	items := display.ItemsFromMessages([]llm.Message{
		*assistantMsg("", toolCall("w1", "write", `{"path":"a.ts","content":"x\n"}`), toolCall("w2", "write", `{"path":"b.ts","content":"y\n"}`)),
		{Role: llm.RoleToolResult, ToolCallID: "w1", ToolName: "write", Content: []llm.ContentBlock{llm.TextBlock("wrote")}, Details: details},
		{Role: llm.RoleToolResult, ToolCallID: "w2", ToolName: "write", Content: []llm.ContentBlock{llm.TextBlock("wrote")}, Details: json.RawMessage(`{"path":"/w/b.ts"}`)},
	})
	if len(items) != 2 {
		t.Fatalf("%d items", len(items))
	}
	if !reflect.DeepEqual(items[0].Diagnostics, lines) {
		t.Fatalf("rebuilt diagnostics: %q", items[0].Diagnostics)
	}
	if items[0].Diff == "" {
		t.Fatal("the diff was lost beside the diagnostics")
	}
	if items[1].Diagnostics != nil {
		t.Fatalf("a result without diagnostics got %q", items[1].Diagnostics)
	}
}
