package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A restore across roots killed between two roots: the main root is
// restored (its journal removed), the extra root's journal (written with
// every root's before the first file changed) is left with its files not
// yet restored. The next open finishes the extra root's restore, with a
// notice naming the root.
func TestInterruptedRestoreOfExtraRootIsFinishedOnOpen(t *testing.T) {
	e := newEnv(t, nil)
	lib := filepath.Join(filepath.Dir(e.workspace), "lib")
	writeFile(t, filepath.Join(lib, "x.txt"), "old x\n")
	libAbs, err := filepath.EvalSymlinks(lib)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(filepath.Join(lib, "x.txt"))
	e.llm.Append(
		llmtest.Response{Match: "write it", ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write", Arguments: `{"path":` + string(q) + `,"content":"new x\n"}`},
		}},
		llmtest.Response{Match: `"w1"`, Text: "written"},
	)
	s := e.start(startOpt{args: []string{"--yolo", "--root", lib}})
	s.prompt("write it")
	st := s.waitIdle()
	s.waitEndCheckpoints(1)
	var start, end string
	for _, en := range checkpointEntries(s) {
		raw, _ := json.Marshal(en["data"])
		var d struct {
			Kind  string
			Roots []struct{ Root, ID string }
		}
		_ = json.Unmarshal(raw, &d)
		if len(d.Roots) != 1 || d.Roots[0].Root != libAbs {
			t.Fatalf("checkpoint without the extra root: %s", raw)
		}
		if d.Kind == "start" {
			start = d.Roots[0].ID
		} else {
			end = d.Roots[0].ID
		}
	}
	if start == "" || end == "" || start == end {
		t.Fatalf("lib checkpoints: start %q end %q", start, end)
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()

	dirs, _ := filepath.Glob(filepath.Join(e.home, ".pi", "agent", "checkpoints", "lib-*"))
	if len(dirs) != 1 {
		t.Fatalf("lib stores: %v", dirs)
	}
	j, _ := json.Marshal(map[string]string{"target": start, "before": end})
	if err := os.WriteFile(filepath.Join(dirs[0], "journal.json"), j, 0o600); err != nil {
		t.Fatal(err)
	}

	s2 := e.start(startOpt{args: []string{"--root", lib}, initOpts: map[string]any{"session": st.Path}})
	s2.waitFor("notice", func() bool { return strings.Contains(s2.allNotifications(), "was interrupted") })
	if !strings.Contains(s2.allNotifications(), libAbs) {
		t.Fatalf("the notice does not name the root: %s", s2.allNotifications())
	}
	if data, _ := os.ReadFile(filepath.Join(lib, "x.txt")); string(data) != "old x\n" {
		t.Fatalf("x.txt = %q after the restore was finished", data)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "journal.json")); !os.IsNotExist(err) {
		t.Fatalf("journal left: %v", err)
	}
}
