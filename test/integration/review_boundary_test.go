package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A write outside the workspace asks with both the boundary (issue 16) and
// the preview (issue 22): alwaysAllowPath with reviewed content writes that
// content and grants the directory; a decline's feedback reaches the model.
func TestReviewOutsideWorkspaceGrantWithContent(t *testing.T) {
	e := newEnv(t, nil)
	outDir := filepath.Join(filepath.Dir(e.workspace), "other")
	far := filepath.Join(filepath.Dir(e.workspace), "far")
	for _, d := range []string{outDir, far} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{
			writeCall("w1", filepath.Join(outDir, "a.txt"), "proposed\n"),
			writeCall("w2", filepath.Join(outDir, "b.txt"), "by grant\n"),
			writeCall("w3", filepath.Join(far, "c.txt"), "declined\n"),
		}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{})
	rv := &reviewer{reply: func(req map[string]any) map[string]any {
		switch req["toolCallId"] {
		case "w1":
			return map[string]any{"decision": "alwaysAllowPath", "content": "reviewed\n"}
		case "w2":
			return map[string]any{"decision": "approve"}
		}
		return map[string]any{"decision": "decline", "feedback": "not in far/"}
	}}
	rv.install(s)
	s.prompt("write them")
	s.waitIdle()

	rv.mu.Lock()
	reqs := append([]map[string]any(nil), rv.request...)
	rv.mu.Unlock()
	// w2 is in the granted directory: it asks only as any edit does (the
	// edit category asks by default), not as an outside call.
	if len(reqs) != 3 || reqs[0]["toolCallId"] != "w1" || reqs[1]["toolCallId"] != "w2" || reqs[2]["toolCallId"] != "w3" {
		t.Fatalf("approval requests: %v", reqs)
	}
	if reqs[1]["outsideWorkspace"] != false || reqs[2]["outsideWorkspace"] != true {
		t.Fatalf("after the grant, w2 outsideWorkspace=%v; w3 outsideWorkspace=%v", reqs[1]["outsideWorkspace"], reqs[2]["outsideWorkspace"])
	}
	r := reqs[0]
	resolved, _ := filepath.EvalSymlinks(outDir)
	if r["outsideWorkspace"] != true || r["access"] != "write" || r["resolvedPath"] != filepath.Join(resolved, "a.txt") {
		t.Fatalf("boundary fields: %v", r)
	}
	if !strings.HasPrefix(r["display"].(string), "OUTSIDE THE WORKSPACE: write ") {
		t.Fatalf("display: %q", r["display"])
	}
	pv, _ := r["preview"].(map[string]any)
	if pv == nil || pv["after"] != "proposed\n" || !strings.Contains(pv["diff"].(string), "+proposed") {
		t.Fatalf("preview: %v", r["preview"])
	}
	if got := readFile(t, filepath.Join(outDir, "a.txt")); got != "reviewed\n" {
		t.Fatalf("a.txt holds %q, want the reviewed content", got)
	}
	if got := readFile(t, filepath.Join(outDir, "b.txt")); got != "by grant\n" {
		t.Fatalf("b.txt holds %q: the path grant did not apply", got)
	}
	if _, err := os.Stat(filepath.Join(far, "c.txt")); err == nil {
		t.Fatal("the declined outside write happened")
	}
	if body := lastRequest(t, e); !strings.Contains(body, "not in far/") {
		t.Fatalf("the model did not get the decline's feedback: %s", body)
	}
}
