package integration

import (
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

// A symlinked path (and a hard link) to a session another pi-lsp holds gets
// -32004; a file that is not a session gets -32006 and no lock file.
func TestSessionLockByInodeOverTheWire(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	s1 := e.start(startOpt{})
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
	s2 := e.start(startOpt{})
	for _, p := range []string{path, link, hard} {
		if err := s2.try("session/open", map[string]any{"path": p}, nil); rpcCode(err) != -32004 {
			t.Fatalf("open %s: %v (code %d), want -32004", p, err, rpcCode(err))
		}
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

// A locked initializationOptions.session "continue" starts a new session,
// with a notice.
func TestLockedContinueFallsBack(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "hi", Repeat: true}})
	s1 := e.start(startOpt{})
	s1.prompt("first")
	s1.waitIdle()
	first := s1.state().Path
	s2 := e.start(startOpt{initOpts: map[string]any{"session": "continue", "logLevel": "warn"}})
	st := s2.state()
	if st.Path == "" || st.Path == first {
		t.Fatalf("continue: path %q (locked one %q)", st.Path, first)
	}
	logs := ""
	for _, m := range s2.Notifications("window/logMessage") {
		logs += string(m.Params)
	}
	if !strings.Contains(logs, "open in another pi-lsp") {
		t.Fatalf("no notice: %s", logs)
	}
	// The display frame follows within the scheduler's window.
	s2.waitFor("the notice in the display", func() bool {
		return strings.Contains(strings.Join(displayTexts(s2), ""), "new session was started")
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
