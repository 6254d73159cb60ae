package integration

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// The run-start checkpoint is taken in the background while the first
// model request streams (issue 28): the run's first tool call must still
// wait for it, so a restore to the prompt gives the files of before the
// run, and the checkpoint is recorded before the run's first answer.
func TestCheckpointOverlapsFirstRequestAndFirstToolWaits(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "change everything", ToolCalls: []llmtest.ToolCall{
			// Every file changes at once: a snapshot still walking when this
			// runs would record some of them changed.
			{ID: "b1", Name: "bash", Arguments: `{"command":"for f in d*/*.txt; do echo changed > \"$f\"; done; rm d00/f000.txt; mkdir -p made/deep && echo new > made/deep/n.txt"}`},
			{ID: "w1", Name: "write", Arguments: `{"path":"d39/f049.txt","content":"written\n"}`},
		}},
		{Match: `"w1"`, Text: "all changed"},
	})
	ws := e.workspace
	for d := range 40 {
		for f := range 50 {
			p := filepath.Join(ws, fmt.Sprintf("d%02d", d), fmt.Sprintf("f%03d.txt", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf("original %d %d\n", d, f)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := workspaceFiles(t, ws)

	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("change everything")
	s.waitIdle()
	after := workspaceFiles(t, ws)
	if after["d00/f001.txt"].data != "changed\n" || after["d39/f049.txt"].data != "written\n" || after["made/deep/n.txt"].data != "new\n" {
		t.Fatalf("the run did not change the files: d00/f001=%q d39/f049=%q", after["d00/f001.txt"].data, after["d39/f049.txt"].data)
	}

	// On the branch: prompt, its start checkpoint, then the first answer.
	entries := s.entries()
	var order []string
	for _, en := range entries {
		switch {
		case en["type"] == "message":
			order = append(order, en["message"].(map[string]any)["role"].(string))
		case en["customType"] == "pi-lsp/checkpoint":
			order = append(order, "checkpoint:"+en["data"].(map[string]any)["kind"].(string))
		}
	}
	if len(order) < 3 || order[0] != "user" || order[1] != "checkpoint:start" || order[2] != "assistant" {
		t.Fatalf("entries = %v, want user, checkpoint:start, assistant, …", order)
	}

	prompt := userEntry(t, s, "change everything")["id"].(string)
	var nav navResult
	s.call("session/navigate", map[string]any{"targetId": prompt, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, before) {
		t.Fatalf("restore to the prompt left %v different from before the run", changedPaths(before, now))
	}
	if nav.Files == nil || nav.Files.Restored != 2000 || nav.Files.Deleted != 1 {
		t.Fatalf("navigate files = %+v, want 2000 restored (1999 changed, 1 deleted) and 1 deleted", nav.Files)
	}
}

// A run whose tools were all read tools changed no file: it records no end
// checkpoint (and walks the workspace once); a run that wrote records one.
func TestReadOnlyRunTakesNoEndCheckpoint(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "only look", ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "read", Arguments: `{"path":"a.txt"}`}}},
		{Match: `"r1"`, Text: "it says alpha"},
		{Match: "now write", ToolCalls: []llmtest.ToolCall{{ID: "w2", Name: "write", Arguments: `{"path":"b.txt","content":"beta\n"}`}}},
		{Match: `"w2"`, Text: "written"},
	})
	if err := os.WriteFile(filepath.Join(e.workspace, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("only look")
	s.waitIdle()
	s.prompt("now write")
	s.waitIdle()
	s.waitEndCheckpoints(1) // taken in the background
	var order []string
	for _, en := range s.entries() {
		switch {
		case en["type"] == "message":
			order = append(order, en["message"].(map[string]any)["role"].(string))
		case en["customType"] == "pi-lsp/checkpoint":
			order = append(order, "checkpoint:"+en["data"].(map[string]any)["kind"].(string))
		}
	}
	want := []string{"user", "checkpoint:start", "assistant", "toolResult", "assistant",
		"user", "checkpoint:start", "assistant", "toolResult", "assistant", "checkpoint:end"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("entries = %v\nwant      %v", order, want)
	}
}
