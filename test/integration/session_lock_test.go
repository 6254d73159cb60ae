package integration

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

func rpcCode(err error) int {
	var re *rpctest.Error
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// A symlinked path (and a hard link) to a session another pi-lsp owns
// finds the same owner: the opener attaches to it (the socket is named by
// device and inode, like the lock). A file that is not a session gets
// -32006 and no lock file.
func TestSessionLockByInodeOverTheWire(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	rt := runtimeDir(t)
	s1 := e.start(startOpt{extraEnv: rt})
	s1.prompt("make a session")
	s1.waitIdle()
	path := s1.state().Path
	link := filepath.Join(e.workspace, "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(filepath.Dir(path), "hard.jsonl")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, link, hard} {
		s2 := e.start(startOpt{extraEnv: rt})
		var res openResult
		s2.call("session/open", map[string]any{"path": p}, &res)
		if !res.Attached || res.OwnerPID != s1.cmd.Process.Pid {
			t.Fatalf("open %s: %+v, want attached to pid %d", p, res, s1.cmd.Process.Pid)
		}
		// Opening it again by another of its paths answers the same.
		s2.call("session/open", map[string]any{"path": path}, &res)
		if !res.Attached {
			t.Fatalf("open again: %+v", res)
		}
		notSession := filepath.Join(e.workspace, "notes.jsonl")
		writeFile(t, notSession, "just some text\n")
		if err := s2.try("session/open", map[string]any{"path": notSession}, nil); rpcCode(err) != -32006 {
			t.Fatalf("not a session: %v, want -32006", err)
		}
		if _, err := os.Stat(notSession + ".lock"); err == nil {
			t.Fatal("a lock file was created beside a file that is not a session")
		}
	}
}

// A locked initializationOptions.session "continue" attaches to the owner
// of the newest session, and initialize says so.
func TestLockedContinueAttaches(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	rt := runtimeDir(t)
	s1 := e.start(startOpt{extraEnv: rt})
	s1.prompt("first")
	s1.waitIdle()
	first := s1.state().Path
	s2 := e.start(startOpt{extraEnv: rt, initOpts: map[string]any{"session": "continue", "logLevel": "warn"}})
	var init struct {
		Attached bool `json:"attached"`
		OwnerPID int  `json:"ownerPid"`
	}
	if err := json.Unmarshal(s2.init, &init); err != nil {
		t.Fatal(err)
	}
	if !init.Attached || init.OwnerPID != s1.cmd.Process.Pid {
		t.Fatalf("initialize: %s, want attached to pid %d", s2.init, s1.cmd.Process.Pid)
	}
	if st := s2.state(); st.Path != first {
		t.Fatalf("continue: path %q, want the locked one %q", st.Path, first)
	}
	// The attached client gets the owner's display: the first prompt is in it.
	s2.waitFor("the owner's display", func() bool {
		v, err := s2.Display()
		return err == nil && strings.Contains(mustJSON(v.State), "first")
	})
}

// A session of a newer format opens read-only with a clear message, and a
// prompt does not append to it.
func TestNewerFormatSessionReadOnly(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	path := filepath.Join(e.workspace, "v4.jsonl")
	content := `{"type":"session","version":4,"id":"v4-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + e.workspace + `"}` + "\n" +
		sessLine("cc000001", "", "user", "from the future") + "\n"
	writeFile(t, path, content)
	s := e.start(startOpt{initOpts: map[string]any{"session": path, "logLevel": "warn"}})
	logs := ""
	for _, m := range s.Notifications("window/logMessage") {
		logs += string(m.Params)
	}
	if !strings.Contains(logs, "format version 4") || !strings.Contains(logs, "read-only") {
		t.Fatalf("no clear message: %s", logs)
	}
	_ = s.try("agent/prompt", map[string]any{"text": "append?"}, nil)
	s.waitIdle()
	if got := readFile(t, path); got != content {
		t.Fatalf("the v4 file was appended to:\n%s", got)
	}
}
