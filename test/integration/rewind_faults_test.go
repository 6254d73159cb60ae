package integration

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

func wantCode(t *testing.T, s *server, method string, params any, code int, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.Call(ctx, method, params, nil)
	var re *rpctest.Error
	if !errors.As(err, &re) || re.Code != code || !strings.Contains(re.Message, msg) {
		t.Fatalf("%s %v: got %v, want code %d with %q", method, params, err, code, msg)
	}
}

// Bad params, busy, a corrupt checkpoint, a folder in the way, files only
// (session/restoreFiles), and the CLI.
func TestRewindFaultsAndCLI(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "make x", ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write", Arguments: `{"path":"x.txt","content":"x one\n"}`},
			{ID: "w2", Name: "write", Arguments: `{"path":"y.txt","content":"y one\n"}`},
		}},
		{Match: `"w2"`, Text: "made"},
		{Match: "change y", ToolCalls: []llmtest.ToolCall{
			{ID: "w3", Name: "write", Arguments: `{"path":"y.txt","content":"y two\n"}`},
		}},
		{Match: `"w3"`, Text: "changed"},
	})
	ws := e.workspace
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("make x")
	s.waitIdle()
	afterMake := s.leaf()
	s.prompt("change y")
	st := s.waitIdle()
	second := userEntry(t, s, "change y")["id"].(string)

	wantCode(t, s, "session/rewindPreview", map[string]any{}, -32602, "targetId")
	wantCode(t, s, "session/restoreFiles", map[string]any{"targetId": 7}, -32602, "")
	wantCode(t, s, "session/navigate", map[string]any{"targetId": second, "files": "sometimes"}, -32602, "files")
	wantCode(t, s, "session/rewindPreview", map[string]any{"targetId": "deadbeef"}, -32005, "deadbeef")

	// Files only: the leaf stays, the files go back to before "change y".
	leaf := s.leaf()
	var rf struct {
		Files filesResult `json:"files"`
	}
	s.call("session/restoreFiles", map[string]any{"targetId": second}, &rf)
	if rf.Files.Restored != 1 || s.leaf() != leaf {
		t.Fatalf("restoreFiles: %+v, leaf %s → %s", rf.Files, leaf, s.leaf())
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "y.txt")); string(data) != "y one\n" {
		t.Fatalf("y.txt = %q", data)
	}

	// A folder in the way (kept by an ignored file in it): the others are
	// restored, the failure is reported by path.
	if err := os.Remove(filepath.Join(ws, "x.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "x.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "x.txt", "keep.o"), []byte("ignored"), 0o644); err != nil {
		t.Fatal(err)
	}
	var nav navResult
	s.call("session/navigate", map[string]any{"targetId": leaf, "files": "restore"}, &nav)
	if nav.Files == nil || len(nav.Files.Failed) != 1 || nav.Files.Restored != 1 {
		t.Fatalf("navigate with a folder in the way: %+v", nav.Files)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "y.txt")); string(data) != "y two\n" {
		t.Fatalf("y.txt = %q", data)
	}
	s.waitShown("x.txt", "no error item names x.txt")
	os.RemoveAll(filepath.Join(ws, "x.txt"))

	// Busy while a run is going.
	e.llm.Append(llmtest.Response{Match: "SLOW", Text: strings.Repeat("x ", 200), ChunkDelayMs: 10})
	s.prompt("SLOW")
	s.waitFor("running", func() bool { return s.state().IsRunning })
	wantCode(t, s, "session/restoreFiles", map[string]any{"targetId": second}, -32001, "")
	wantCode(t, s, "session/navigate", map[string]any{"targetId": second, "files": "restore"}, -32001, "")
	s.call("agent/abort", nil, nil)
	s.waitIdle()

	// A corrupt checkpoint: a clear error naming the entry, no file changes.
	before := workspaceFiles(t, ws)
	store := filepath.Join(e.home, ".pi", "agent", "checkpoints")
	var manifests []string
	_ = filepath.WalkDir(store, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "manifests" {
			manifests = append(manifests, p)
		}
		return nil
	})
	if len(manifests) < 2 {
		t.Fatalf("manifests: %v", manifests)
	}
	saved := map[string][]byte{}
	for _, m := range manifests {
		saved[m], _ = os.ReadFile(m)
		if err := os.WriteFile(m, append(saved[m], "tampered\n"...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, s, "session/navigate", map[string]any{"targetId": second, "files": "restore"}, -32005, second)
	if now := workspaceFiles(t, ws); !maps.Equal(now, before) {
		t.Fatalf("a corrupt checkpoint changed %v", changedPaths(before, now))
	}
	for m, data := range saved {
		os.WriteFile(m, data, 0o600)
	}
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)

	// The CLI: the preview, then the files and the conversation.
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binPath, append([]string{"sessions", "rewind"}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_SESSIONS="+e.sessions)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sessions rewind %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := cli(st.Path, second, "--preview"); !strings.Contains(out, "modified y.txt") {
		t.Fatalf("preview:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "y.txt")); string(data) != "y two\n" {
		t.Fatalf("--preview changed y.txt: %q", data)
	}
	out := cli(st.Path, second) // y.txt, and x.txt the test removed
	if !strings.Contains(out, "2 restored") || !strings.Contains(out, "change y") {
		t.Fatalf("rewind:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "y.txt")); string(data) != "y one\n" {
		t.Fatalf("y.txt after the CLI rewind = %q", data)
	}
	out = cli(st.Path, afterMake, "--chat-only")
	if strings.Contains(out, "restored") {
		t.Fatalf("--chat-only touched files:\n%s", out)
	}
}
