package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// toolResults are the tool result texts of the session, in order.
func toolResults(s *server) []string {
	var out []string
	for _, e := range s.entries() {
		if e["type"] != "message" {
			continue
		}
		m := e["message"].(map[string]any)
		if m["role"] != "toolResult" {
			continue
		}
		var b strings.Builder
		for _, c := range m["content"].([]any) {
			if t, ok := c.(map[string]any)["text"].(string); ok {
				b.WriteString(t)
			}
		}
		out = append(out, b.String())
	}
	return out
}

func readCall(id, path string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "read", Arguments: mustJSON(map[string]any{"path": path})}
}

// Reads outside the workspace ask (relative ../x, an absolute path, and a
// symlink inside pointing out); declined means not read. A read inside does
// not ask.
func TestBoundaryReadsOutsideAsk(t *testing.T) {
	e := newEnv(t, nil)
	secretDir := filepath.Join(filepath.Dir(e.workspace), "secret")
	writeFile(t, filepath.Join(secretDir, "id_rsa"), "PRIVATE-KEY-MATERIAL\n")
	writeFile(t, filepath.Join(e.workspace, "inside.txt"), "inside text\n")
	if err := os.Symlink(secretDir, filepath.Join(e.workspace, "link")); err != nil {
		t.Fatal(err)
	}
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{
			readCall("r1", "inside.txt"),
			readCall("r2", "../secret/id_rsa"),
			readCall("r3", filepath.Join(secretDir, "id_rsa")),
			readCall("r4", "link/id_rsa"),
		}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{})
	ap := &approvals{} // declines everything
	ap.install(s)
	s.prompt("read them")
	s.waitIdle()

	if ap.count() != 3 {
		t.Fatalf("approval requests: %d, want 3 (the three outside reads): %v", ap.count(), ap.seen)
	}
	want := filepath.Join(secretDir, "id_rsa")
	if real, err := filepath.EvalSymlinks(want); err == nil {
		want = real
	}
	for _, req := range ap.seen {
		if req["outsideWorkspace"] != true || req["resolvedPath"] != want || req["access"] != "read" {
			t.Fatalf("approval request does not say outside/resolved path %s: %v", want, req)
		}
	}
	res := toolResults(s)
	if len(res) != 4 || !strings.Contains(res[0], "inside text") {
		t.Fatalf("results: %q", res)
	}
	for _, r := range res[1:] {
		if strings.Contains(r, "PRIVATE-KEY") || !strings.Contains(r, "declined") {
			t.Fatalf("declined outside read leaked or was not declined: %q", r)
		}
	}
	for _, body := range e.llm.Requests() {
		if strings.Contains(string(body), "PRIVATE-KEY") {
			t.Fatal("the secret reached the provider")
		}
	}
}

// YOLO approves inside the workspace but still asks before writing
// outside; an always-allow-path answer grants the directory.
func TestBoundaryYoloStillAsksOutside(t *testing.T) {
	e := newEnv(t, nil)
	outDir := filepath.Join(filepath.Dir(e.workspace), "other")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{
			writeCall("w1", "in.txt", "in\n"),
			writeCall("w2", filepath.Join(outDir, "a.txt"), "declined\n"),
			writeCall("w3", filepath.Join(outDir, "b.txt"), "granted\n"),
			writeCall("w4", filepath.Join(outDir, "c.txt"), "by grant\n"),
		}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{args: []string{"--yolo"}})
	ap := &approvals{decisions: []string{"decline", "alwaysAllowPath"}}
	ap.install(s)
	s.prompt("write them")
	s.waitIdle()
	if ap.count() != 2 {
		t.Fatalf("approval requests: %d, want 2: %v", ap.count(), ap.seen)
	}
	if ap.seen[0]["outsideWorkspace"] != true || ap.seen[0]["access"] != "write" {
		t.Fatalf("request: %v", ap.seen[0])
	}
	if readFile(t, filepath.Join(e.workspace, "in.txt")) != "in\n" {
		t.Fatal("inside write under YOLO did not happen")
	}
	if _, err := os.Stat(filepath.Join(outDir, "a.txt")); err == nil {
		t.Fatal("declined outside write happened")
	}
	if readFile(t, filepath.Join(outDir, "b.txt")) != "granted\n" || readFile(t, filepath.Join(outDir, "c.txt")) != "by grant\n" {
		t.Fatal("granted outside writes did not happen")
	}
	var perms struct {
		Grants struct {
			Paths []struct {
				Path  string `json:"path"`
				Write bool   `json:"write"`
			} `json:"paths"`
		} `json:"grants"`
	}
	s.call("permissions/get", nil, &perms)
	if len(perms.Grants.Paths) != 1 || !perms.Grants.Paths[0].Write || !strings.HasSuffix(perms.Grants.Paths[0].Path, "other") {
		t.Fatalf("path grants: %+v", perms.Grants)
	}
}

// --allow-outside and --root widen the workspace; a --root that does not
// exist stops start-up.
func TestBoundaryRootAndAllowOutside(t *testing.T) {
	e := newEnv(t, nil)
	lib := filepath.Join(filepath.Dir(e.workspace), "lib")
	writeFile(t, filepath.Join(lib, "x.go"), "package lib\n")
	other := filepath.Join(filepath.Dir(e.workspace), "other")
	writeFile(t, filepath.Join(other, "y.txt"), "other\n")
	e.llm.Append(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{readCall("r1", filepath.Join(lib, "x.go"))}},
		llmtest.Response{Text: "done"},
		llmtest.Response{ToolCalls: []llmtest.ToolCall{readCall("r2", filepath.Join(other, "y.txt"))}},
		llmtest.Response{Text: "done"},
	)
	s := e.start(startOpt{args: []string{"--root", lib}})
	ap := &approvals{}
	ap.install(s)
	s.prompt("read lib")
	s.waitIdle()
	if ap.count() != 0 || !strings.Contains(strings.Join(toolResults(s), ""), "package lib") {
		t.Fatalf("a read under --root asked or failed: %d %q", ap.count(), toolResults(s))
	}
	s2 := e.start(startOpt{args: []string{"--allow-outside"}})
	ap2 := &approvals{}
	ap2.install(s2)
	s2.prompt("read other")
	s2.waitIdle()
	if ap2.count() != 0 || !strings.Contains(strings.Join(toolResults(s2), ""), "other") {
		t.Fatalf("--allow-outside asked or failed: %d %q", ap2.count(), toolResults(s2))
	}

	out, err := runBinary(t, e, "serve", "--root", filepath.Join(e.workspace, "missing"))
	if err == nil || !strings.Contains(out, "--root") || !strings.Contains(out, "missing") {
		t.Fatalf("a missing --root did not stop start-up: %v %q", err, out)
	}
}
