package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Checkpoints cover every read-write root (issue 28): turns change files in
// the main root and in a --root; the preview lists both (the extra root's
// files by absolute path), a restore brings back both roots' bytes and
// modes, and navigating back to the leaf brings back the newer files of
// both.
func TestRewindCoversExtraRoots(t *testing.T) {
	e := newEnv(t, nil)
	lib := filepath.Join(filepath.Dir(e.workspace), "lib")
	writeFile(t, filepath.Join(lib, "x.go"), "package lib // v0\n")
	writeFile(t, filepath.Join(lib, "tool.sh"), "#!/bin/sh\necho lib\n")
	if err := os.Chmod(filepath.Join(lib, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, ".gitignore"), "out/\n")
	writeFile(t, filepath.Join(e.workspace, "a.txt"), "alpha\n")
	libAbs, err := filepath.EvalSymlinks(lib) // roots are named resolved
	if err != nil {
		t.Fatal(err)
	}
	libPath := func(rel string) string { return filepath.ToSlash(filepath.Join(libAbs, rel)) }
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	e.llm.Append(
		llmtest.Response{Match: "turn one", ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write", Arguments: `{"path":"a.txt","content":"one\n"}`},
			{ID: "w1l", Name: "write", Arguments: fmt.Sprintf(`{"path":%s,"content":"package lib // v1\n"}`, q(filepath.Join(lib, "x.go")))},
			{ID: "b1", Name: "bash", Arguments: fmt.Sprintf(`{"command":%s}`, q("mkdir -p "+lib+"/deep/er && printf 'L\\000\\001' > "+lib+"/deep/er/blob.bin && printf '#!/bin/sh\\n' > "+lib+"/run.sh && chmod 700 "+lib+"/run.sh"))},
		}},
		llmtest.Response{Match: `"w1"`, Text: "turn one done"},
		llmtest.Response{Match: "turn two", ToolCalls: []llmtest.ToolCall{
			{ID: "e2", Name: "edit", Arguments: fmt.Sprintf(`{"path":%s,"oldText":"v1","newText":"v2"}`, q(filepath.Join(lib, "x.go")))},
			{ID: "b2", Name: "bash", Arguments: fmt.Sprintf(`{"command":%s}`, q("rm "+lib+"/tool.sh && chmod 644 "+lib+"/run.sh && rm -r "+lib+"/deep && mkdir -p "+lib+"/out && echo obj > "+lib+"/out/o.o && echo two > b.txt"))},
		}},
		llmtest.Response{Match: `"e2"`, Text: "turn two done"},
		llmtest.Response{Match: "turn three", ToolCalls: []llmtest.ToolCall{
			{ID: "w3", Name: "write", Arguments: fmt.Sprintf(`{"path":%s,"content":"three\n"}`, q(filepath.Join(lib, "three.txt")))},
			{ID: "w3m", Name: "write", Arguments: `{"path":"a.txt","content":"three\n"}`},
		}},
		llmtest.Response{Match: `"w3"`, Text: "turn three done"},
	)
	s := e.start(startOpt{args: []string{"--yolo", "--root", lib}})
	both := func() map[string]wsFile {
		out := workspaceFiles(t, e.workspace)
		for p, f := range workspaceFiles(t, lib) {
			out[libPath(p)] = f
		}
		return out
	}
	s.prompt("turn one")
	s.waitIdle()
	afterOne := both()
	s.prompt("turn two")
	s.waitIdle()
	afterTwo := both()
	s.prompt("turn three")
	st := s.waitIdle()
	afterThree := both()
	if afterOne[libPath("run.sh")].mode != 0o700 || afterTwo[libPath("out/o.o")].data != "obj\n" || afterThree[libPath("three.txt")].data != "three\n" {
		t.Fatalf("the turns did not run: %v", afterThree)
	}
	// The checkpoints name the extra root's manifest besides the main one's.
	for _, en := range checkpointEntries(s) {
		d := en["data"].(map[string]any)
		roots, _ := d["roots"].([]any)
		if d["id"] == "" || len(roots) != 1 || roots[0].(map[string]any)["root"] != libAbs {
			t.Fatalf("checkpoint entry without the extra root: %v", d)
		}
	}
	oldLeaf := s.leaf()
	second := userEntry(t, s, "turn two")["id"].(string)

	var preview struct {
		Files []struct{ Path, Change, Diff string } `json:"files"`
	}
	s.call("session/rewindPreview", map[string]any{"targetId": second}, &preview)
	if now := both(); !maps.Equal(now, afterThree) {
		t.Fatalf("the preview changed files: %v", changedPaths(now, afterThree))
	}
	var listed []string
	for _, f := range preview.Files {
		listed = append(listed, f.Path+":"+f.Change)
		if f.Path == libPath("x.go") && (!strings.Contains(f.Diff, "-package lib // v2") || !strings.Contains(f.Diff, "+package lib // v1")) {
			t.Fatalf("lib x.go diff:\n%s", f.Diff)
		}
	}
	wantListed := []string{"a.txt:modified", "b.txt:deleted", libPath("deep/er/blob.bin") + ":added", libPath("run.sh") + ":modified",
		libPath("three.txt") + ":deleted", libPath("tool.sh") + ":added", libPath("x.go") + ":modified"}
	if !slices.Equal(listed, wantListed) {
		t.Fatalf("preview =\n%v\nwant\n%v", listed, wantListed)
	}

	// Restore to the second prompt: both roots as after turn one.
	var nav navResult
	s.call("session/navigate", map[string]any{"targetId": second, "files": "restore"}, &nav)
	now := both()
	var previewPaths []string
	for _, f := range preview.Files {
		previewPaths = append(previewPaths, f.Path)
	}
	slices.Sort(previewPaths) // the preview lists the main root's files first
	if got := changedPaths(afterThree, now); !slices.Equal(got, previewPaths) {
		t.Fatalf("restore changed %v, the preview said %v", got, previewPaths)
	}
	if nav.Files == nil || nav.Files.Restored != 5 || nav.Files.Deleted != 2 || len(nav.Files.Failed) != 0 {
		t.Fatalf("navigate files = %+v", nav.Files)
	}
	if slices.Sort(nav.Files.Paths); !slices.Equal(nav.Files.Paths, previewPaths) {
		t.Fatalf("restored paths %v, want %v", nav.Files.Paths, previewPaths)
	}
	for p, f := range afterOne {
		if now[p] != f {
			t.Fatalf("%s = %+v, want %+v (as after turn one)", p, now[p], f)
		}
	}
	if now[libPath("tool.sh")].mode != 0o755 || now[libPath("run.sh")].mode != 0o700 || now[libPath("deep/er/blob.bin")].data != "L\x00\x01" {
		t.Fatalf("lib modes or bytes: %+v", now)
	}
	if now[libPath("out/o.o")].data != "obj\n" {
		t.Fatal("the extra root's ignored output was touched")
	}

	// Back to the old leaf: the newer files of both roots.
	s.call("session/navigate", map[string]any{"targetId": oldLeaf, "files": "restore"}, &nav)
	if now := both(); !maps.Equal(now, afterThree) {
		t.Fatalf("old leaf: differs in %v", changedPaths(now, afterThree))
	}
	if _, err := os.Stat(filepath.Join(lib, "deep")); !os.IsNotExist(err) {
		t.Fatalf("the emptied folder of the extra root stays: %v", err)
	}
	// Code only, to the first prompt: the workspace as it started, in both.
	first := userEntry(t, s, "turn one")["id"].(string)
	var code struct {
		Files filesResult `json:"files"`
	}
	s.call("session/restoreFiles", map[string]any{"targetId": first}, &code)
	now = both()
	if now["a.txt"].data != "alpha\n" || now[libPath("x.go")].data != "package lib // v0\n" || now[libPath("three.txt")].data != "" {
		t.Fatalf("restoreFiles to the first prompt: %v", now)
	}
	if _, ok := now[libPath("run.sh")]; ok {
		t.Fatal("run.sh was not deleted")
	}

	// The CLI covers the roots it is given (--root, as serve), and leaves
	// the others alone.
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
	out, err := runBinary(t, e, "sessions", "rewind", st.Path, second, "--preview", "--root", lib)
	if err != nil || !strings.Contains(out, "added    "+libPath("run.sh")) || !strings.Contains(out, "modified "+libPath("x.go")) || !strings.Contains(out, "modified a.txt") {
		t.Fatalf("sessions rewind --preview --root: %v\n%s", err, out)
	}
	out, err = runBinary(t, e, "sessions", "rewind", st.Path, second, "--code-only", "--root", lib)
	if err != nil || !strings.Contains(out, libPath("x.go")) {
		t.Fatalf("sessions rewind --code-only --root: %v\n%s", err, out)
	}
	wantCLI := maps.Clone(afterOne)
	wantCLI[libPath("out/o.o")] = afterTwo[libPath("out/o.o")] // ignored: untouched
	if now := both(); !maps.Equal(now, wantCLI) {
		t.Fatalf("the CLI's restore differs from after turn one in %v", changedPaths(now, wantCLI))
	}
	out, err = runBinary(t, e, "sessions", "rewind", st.Path, first, "--preview")
	if err != nil || strings.Contains(out, libAbs) || !strings.Contains(out, "modified a.txt") {
		t.Fatalf("sessions rewind --preview without --root lists the extra root: %v\n%s", err, out)
	}
	// pi opens the file (checkpoint entries with "roots") and builds a
	// context of the conversation only.
	msgs := pitest.BuildContext(t, st.Path)
	if len(msgs) < 6 {
		t.Fatalf("pi builds %d messages", len(msgs))
	}
	for _, m := range msgs {
		if bytes.Contains(m, []byte("pi-lsp/checkpoint")) || bytes.Contains(m, []byte(`"roots"`)) {
			t.Fatalf("a checkpoint reached pi's context: %s", m)
		}
	}

	// Fork with files: a new session before the third prompt, and both
	// roots' files as they were just before its run.
	s2 := e.start(startOpt{args: []string{"--yolo", "--root", lib}, initOpts: map[string]any{"session": st.Path}})
	third := userEntry(t, s2, "turn three")["id"].(string)
	var fork struct {
		Path  string       `json:"path"`
		Files *filesResult `json:"files"`
	}
	s2.call("session/fork", map[string]any{"entryId": third, "files": "restore"}, &fork)
	if fork.Path == st.Path || fork.Files == nil || !slices.Contains(fork.Files.Paths, libPath("x.go")) || !slices.Contains(fork.Files.Paths, "b.txt") {
		t.Fatalf("fork = %+v", fork)
	}
	if now := both(); !maps.Equal(now, afterTwo) {
		t.Fatalf("the fork's files differ from after turn two in %v", changedPaths(now, afterTwo))
	}
}

// An extra root removed between turns: checkpoints go on without it (one
// notice), and a restore puts the main root back and reports the root it
// could not restore, instead of failing.
func TestRewindWithExtraRootRemoved(t *testing.T) {
	e := newEnv(t, nil)
	lib := filepath.Join(filepath.Dir(e.workspace), "lib")
	writeFile(t, filepath.Join(lib, "x.txt"), "x\n")
	writeFile(t, filepath.Join(e.workspace, "a.txt"), "zero\n")
	libAbs, err := filepath.EvalSymlinks(lib)
	if err != nil {
		t.Fatal(err)
	}
	e.llm.Append(
		llmtest.Response{Match: "turn one", ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"a.txt","content":"one\n"}`}}},
		llmtest.Response{Match: `"w1"`, Text: "one done"},
		llmtest.Response{Match: "turn two", ToolCalls: []llmtest.ToolCall{{ID: "w2", Name: "write", Arguments: `{"path":"a.txt","content":"two\n"}`}}},
		llmtest.Response{Match: `"w2"`, Text: "two done"},
		llmtest.Response{Match: "turn three", ToolCalls: []llmtest.ToolCall{{ID: "w3", Name: "write", Arguments: `{"path":"a.txt","content":"three\n"}`}}},
		llmtest.Response{Match: `"w3"`, Text: "three done"},
	)
	s := e.start(startOpt{args: []string{"--yolo", "--root", lib}})
	s.prompt("turn one")
	s.waitIdle()
	if err := os.RemoveAll(lib); err != nil {
		t.Fatal(err)
	}
	s.prompt("turn two")
	s.waitIdle()
	s.prompt("turn three")
	s.waitIdle()
	if n := strings.Count(s.allNotifications(), "left out of checkpoints while it fails"); n != 1 {
		t.Fatalf("%d notices of the removed root:\n%s", n, s.allNotifications())
	}
	var nav navResult
	s.call("session/navigate", map[string]any{"targetId": userEntry(t, s, "turn one")["id"], "files": "restore"}, &nav)
	if data, _ := os.ReadFile(filepath.Join(e.workspace, "a.txt")); string(data) != "zero\n" {
		t.Fatalf("a.txt = %q", data)
	}
	if nav.Files == nil || nav.Files.Restored != 1 || len(nav.Files.Failed) != 1 || !strings.Contains(mustJSON(nav.Files.Failed[0]), libAbs) {
		t.Fatalf("files = %+v", nav.Files)
	}
	if _, err := os.Stat(lib); !os.IsNotExist(err) {
		t.Fatalf("the removed root was written: %v", err)
	}
}
