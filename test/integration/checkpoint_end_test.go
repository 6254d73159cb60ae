package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// checkpointEntries are the pi-lsp/checkpoint entries of the session, in
// file order.
func checkpointEntries(s *server) []map[string]any {
	var out []map[string]any
	for _, en := range s.entries() {
		if en["customType"] == "pi-lsp/checkpoint" {
			out = append(out, en)
		}
	}
	return out
}

// waitEndCheckpoints waits until n end checkpoints are recorded (the end
// checkpoint is taken in the background after the run ends).
func (s *server) waitEndCheckpoints(n int) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%d end checkpoint(s)", n), func() bool {
		k := 0
		for _, en := range checkpointEntries(s) {
			if en["data"].(map[string]any)["kind"] == "end" {
				k++
			}
		}
		return k >= n
	})
}

// lastAssistant is the id of the newest assistant message.
func lastAssistant(t *testing.T, s *server) string {
	t.Helper()
	id := ""
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "assistant" {
			id = en["id"].(string)
		}
	}
	if id == "" {
		t.Fatal("no assistant message")
	}
	return id
}

// fileEntries are every entry of a session file (all branches).
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var en map[string]any
		if err := json.Unmarshal(line, &en); err != nil {
			t.Fatalf("session line %q: %v", line, err)
		}
		out = append(out, en)
	}
	return out
}

// endCheckpointBelow fails unless the newest end checkpoint is recorded
// below entry want: as its child, or below entries appended at the leaf
// meanwhile that are not messages and do not move the leaf (a title).
func endCheckpointBelow(t *testing.T, sessionFile, want string) {
	t.Helper()
	byID := map[string]map[string]any{}
	parent := ""
	for _, en := range fileEntries(t, sessionFile) {
		id, _ := en["id"].(string)
		byID[id] = en
		if en["customType"] == "pi-lsp/checkpoint" && en["data"].(map[string]any)["kind"] == "end" {
			parent, _ = en["parentId"].(string)
		}
	}
	if parent == "" {
		t.Fatal("no end checkpoint")
	}
	var path []string
	for id := parent; id != want; {
		en, ok := byID[id]
		if !ok {
			t.Fatalf("the end checkpoint is not below %s: its ancestors are %v", want, path)
		}
		switch en["type"] {
		case "custom", "session_info", "label", "model_change", "thinking_level_change":
		default:
			t.Fatalf("the end checkpoint is below a %s entry %s, not the run's last answer %s (ancestors %v)", en["type"], id, want, path)
		}
		path = append(path, fmt.Sprint(en["type"]))
		id, _ = en["parentId"].(string)
	}
}

// The end checkpoint of a run that wrote files is taken in the background
// (issue 28): the run ends without waiting for it. Closing stdin right
// after the run still records it before the process exits, on the run's
// last answer; a navigate with files right after a run waits for it, so
// the restore is exact and the checkpoint stays on the run's last answer.
func TestEndCheckpointIsAsyncAndFlushed(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "first change", ToolCalls: []llmtest.ToolCall{
			{ID: "c1", Name: "bash", Arguments: `{"command":"for f in d*/*.txt; do echo one > \"$f\"; done; rm d00/f000.txt"}`},
		}},
		{Match: `"c1"`, Text: "changed once"},
		{Match: "second change", ToolCalls: []llmtest.ToolCall{
			{ID: "c2", Name: "bash", Arguments: `{"command":"sleep 1; for f in d*/*.txt; do echo two > \"$f\"; done; mkdir -p made && echo new > made/n.txt"}`},
		}},
		{Match: `"c2"`, Text: "changed twice"},
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

	// 1. The process exits right after the run: stdin closed, clean exit.
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("first change")
	st := s.waitIdle()
	_ = s.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("pi-lsp exit: %v", err)
	}
	after1 := workspaceFiles(t, ws)
	if after1["d01/f001.txt"].data != "one\n" {
		t.Fatalf("the first run did not change the files: %q", after1["d01/f001.txt"].data)
	}

	s2 := e.start(startOpt{args: []string{"--yolo"}, initOpts: map[string]any{"session": st.Path}})
	endCheckpointBelow(t, st.Path, lastAssistant(t, s2))

	// 2. A navigate with files right after a run, its end checkpoint in
	// flight: the prompt's id is read while the run's bash sleeps, and the
	// navigate is sent as soon as the run is idle.
	s2.prompt("second change")
	var prompt2 string
	s2.waitFor("the second prompt", func() bool {
		for _, en := range s2.entries() {
			if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(mustJSON(m["content"]), "second change") {
				prompt2 = en["id"].(string)
			}
		}
		return prompt2 != ""
	})
	s2.waitIdle()
	var nav navResult
	s2.call("session/navigate", map[string]any{"targetId": prompt2, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, after1) {
		t.Fatalf("restore to the second prompt: %v differ from the files after the first run", changedPaths(after1, now))
	}
	// The second run's files, as its commands made them.
	after2 := map[string]wsFile{}
	for p, f := range after1 {
		after2[p] = wsFile{data: "two\n", mode: f.mode}
	}
	after2["made/n.txt"] = wsFile{data: "new\n", mode: 0o644}
	answer2 := ""
	for _, en := range fileEntries(t, st.Path) {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "assistant" {
			answer2 = en["id"].(string)
		}
	}
	endCheckpointBelow(t, st.Path, answer2)
	s2.call("session/navigate", map[string]any{"targetId": answer2, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, after2) {
		t.Fatalf("restore to the second answer: %v differ from the files after the second run", changedPaths(after2, now))
	}
	// And back to before anything: the first prompt, from the reopened session.
	prompt1 := userEntry(t, s2, "first change")["id"].(string)
	s2.call("session/navigate", map[string]any{"targetId": prompt1, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, before) {
		t.Fatalf("restore to the first prompt: %v differ from before", changedPaths(before, now))
	}
}
