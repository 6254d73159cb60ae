package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A restore cut short (kill -9 after its journal was written, some files
// changed) is finished when the session is next opened, with a notice.
func TestInterruptedRestoreIsFinishedOnOpen(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "write them", ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write", Arguments: `{"path":"a.txt","content":"new a\n"}`},
			{ID: "w2", Name: "write", Arguments: `{"path":"b.txt","content":"new b\n"}`},
		}},
		{Match: `"w2"`, Text: "written"},
	})
	ws := e.workspace
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("old "+f[:1]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("write them")
	st := s.waitIdle()
	s.waitEndCheckpoints(1) // taken in the background
	var start, end string
	for _, en := range s.entries() {
		if en["customType"] == "pi-lsp/checkpoint" {
			raw, _ := json.Marshal(en["data"])
			var d struct{ ID, Kind string }
			_ = json.Unmarshal(raw, &d)
			if d.Kind == "start" {
				start = d.ID
			} else {
				end = d.ID
			}
		}
	}
	if start == "" || end == "" {
		t.Fatalf("checkpoints: start %q end %q", start, end)
	}
	_ = s.cmd.Process.Kill() // no clean shutdown
	_ = s.cmd.Wait()

	// What a restore killed halfway leaves: its journal, a.txt restored, b.txt not.
	dirs, _ := filepath.Glob(filepath.Join(e.home, ".pi", "agent", "checkpoints", "*"))
	if len(dirs) != 1 {
		t.Fatalf("stores: %v", dirs)
	}
	j, _ := json.Marshal(map[string]string{"target": start, "before": end})
	if err := os.WriteFile(filepath.Join(dirs[0], "journal.json"), j, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("old a\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	s2 := e.start(startOpt{initOpts: map[string]any{"session": st.Path}})
	s2.waitFor("notice", func() bool { return strings.Contains(s2.allNotifications(), "was interrupted") })
	for _, f := range []string{"a.txt", "b.txt"} {
		if data, _ := os.ReadFile(filepath.Join(ws, f)); string(data) != "old "+f[:1]+"\n" {
			t.Fatalf("%s = %q after the restore was finished", f, data)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "journal.json")); !os.IsNotExist(err) {
		t.Fatalf("journal left: %v", err)
	}
}
