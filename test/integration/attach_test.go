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

// An editor whose pi-lsp has a session of its own open attaches to another
// process's session through session/open: the session it leaves is closed,
// its lock and socket released, so the next opener owns it. When a third
// process is attached to the session it leaves, that one stays open and
// served for it.
func TestAttachingClosesTheSessionLeftBehind(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	rt := runtimeDir(t)
	s1 := e.start(startOpt{extraEnv: rt})
	s1.prompt("the owned session")
	s1.waitIdle()
	target := s1.state().Path

	t.Run("nobody else on it: closed", func(t *testing.T) {
		s2 := e.start(startOpt{extraEnv: rt})
		s2.prompt("a session of its own")
		s2.waitIdle()
		own := s2.state().Path
		if pids := lockHolders(t, own); len(pids) != 1 || pids[0] != s2.cmd.Process.Pid {
			t.Fatalf("lock holders of its own session %v, want %d", pids, s2.cmd.Process.Pid)
		}
		var res openResult
		s2.call("session/open", map[string]any{"path": target}, &res)
		if !res.Attached || res.OwnerPID != s1.cmd.Process.Pid {
			t.Fatalf("session/open: %+v", res)
		}
		if pids := lockHolders(t, own); len(pids) != 0 {
			t.Fatalf("the session left behind is still locked by %v", pids)
		}
		if _, err := os.Stat(socketFile(t, rt, own)); !os.IsNotExist(err) {
			t.Fatalf("the session left behind is still served on its socket (%v)", err)
		}
		// The next opener owns it.
		s3 := e.start(startOpt{extraEnv: rt})
		var r3 openResult
		s3.call("session/open", map[string]any{"path": own}, &r3)
		if r3.Attached || r3.Path != own {
			t.Fatalf("session/open of the released session: %+v", r3)
		}
		if pids := lockHolders(t, own); len(pids) != 1 || pids[0] != s3.cmd.Process.Pid {
			t.Fatalf("lock holders %v, want %d", pids, s3.cmd.Process.Pid)
		}
		// The attached editor works on the owner's session.
		s2.prompt("through the attached one")
		s2.waitIdle()
		if n := userMessages(t, target, "through the attached one"); n != 1 {
			t.Fatalf("the prompt is in the owner's file %d times", n)
		}
	})

	t.Run("another process attached to it: kept", func(t *testing.T) {
		s2 := e.start(startOpt{extraEnv: rt})
		s2.prompt("a session followed by another")
		s2.waitIdle()
		own := s2.state().Path
		follower := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": own}})
		if !strings.Contains(string(follower.init), `"attached":true`) {
			t.Fatalf("the follower did not attach: %s", follower.init)
		}
		var res openResult
		s2.call("session/open", map[string]any{"path": target}, &res)
		if !res.Attached {
			t.Fatalf("session/open: %+v", res)
		}
		if pids := lockHolders(t, own); len(pids) != 1 || pids[0] != s2.cmd.Process.Pid {
			t.Fatalf("lock holders of the followed session %v, want still %d", pids, s2.cmd.Process.Pid)
		}
		follower.prompt("from the follower")
		follower.waitIdle()
		if n := userMessages(t, own, "from the follower"); n != 1 {
			t.Fatalf("the follower's prompt is in its session %d times", n)
		}
	})
}
