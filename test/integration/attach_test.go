package integration

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// runtimeDir is a short XDG_RUNTIME_DIR of the test's own, so its attach
// sockets are its own and their paths stay short.
func runtimeDir(t *testing.T) []string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return []string{"XDG_RUNTIME_DIR=" + dir}
}

type openResult struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Attached  bool   `json:"attached"`
	OwnerPID  int    `json:"ownerPid"`
}

// userMessages counts the user messages with text in the session file.
func userMessages(t *testing.T, path, text string) int {
	t.Helper()
	n := 0
	for _, e := range readSessionFile(t, path) {
		m, _ := e["message"].(map[string]any)
		if m == nil || m["role"] != "user" {
			continue
		}
		b, _ := json.Marshal(m["content"])
		if strings.Contains(string(b), text) {
			n++
		}
	}
	return n
}

// Two pi-lsp serve on one session: the second attaches to the first, a
// prompt sent through it runs once, in the owner, and streams to both.
func TestTwoServersOnOneSession(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "the answer streams to both", Repeat: true}})
	rt := runtimeDir(t)
	s1 := e.start(startOpt{extraEnv: rt})
	s1.prompt("make a session")
	s1.waitIdle()
	path := s1.state().Path

	s2 := e.start(startOpt{extraEnv: rt, args: []string{"--yolo"}})
	var res openResult
	s2.call("session/open", map[string]any{"path": path}, &res)
	if !res.Attached || res.OwnerPID != s1.cmd.Process.Pid || res.Path != path {
		t.Fatalf("session/open: %+v, want attached to pid %d on %s", res, s1.cmd.Process.Pid, path)
	}
	before := len(e.llm.Requests())
	s2.prompt("asked through the second")
	s2.waitIdle()
	if got := len(e.llm.Requests()) - before; got != 1 {
		t.Fatalf("%d model requests for one prompt, want 1", got)
	}
	if n := userMessages(t, path, "asked through the second"); n != 1 {
		t.Fatalf("the user message is in the file %d times, want 1", n)
	}
	// The owner's client saw the run too, and both displays hold it.
	for i, s := range []*server{s1, s2} {
		s.waitFor("the run in the display", func() bool {
			v, err := s.Display()
			return err == nil && strings.Contains(mustJSON(v.State), "asked through the second") &&
				strings.Contains(mustJSON(v.State), "the answer streams to both")
		})
		_ = i
	}
	// The owner's settings govern: the attacher's --yolo does not change them.
	if st := s2.state(); st.Yolo || st.Path != path {
		t.Fatalf("attached state: %+v", st)
	}
}
