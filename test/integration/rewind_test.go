package integration

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Rewind with files (issue 28): three turns change the workspace through
// write, edit and bash; the session tree puts the files back on any branch.

type wsFile struct {
	data string
	mode fs.FileMode
}

// workspaceFiles reads every file under root except .git/ (ignored files
// included: the test checks they are untouched).
func workspaceFiles(t *testing.T, root string) map[string]wsFile {
	t.Helper()
	out := map[string]wsFile{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = wsFile{string(data), info.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gitDir reads every byte of the repository (HEAD, refs, index, stash,
// objects, logs).
func gitDir(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gitRun(t *testing.T, dir, home string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func changedPaths(a, b map[string]wsFile) []string {
	var out []string
	for p, f := range a {
		if g, ok := b[p]; !ok || g != f {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

type filesResult struct {
	Restored int      `json:"restored"`
	Deleted  int      `json:"deleted"`
	Paths    []string `json:"paths"`
	Failed   []any    `json:"failed"`
}

type navResult struct {
	LeafID string       `json:"leafId"`
	Files  *filesResult `json:"files"`
}

func (s *server) leaf() string {
	s.t.Helper()
	var tree struct {
		LeafID string `json:"leafId"`
	}
	s.call("session/tree", nil, &tree)
	return tree.LeafID
}

func userEntry(t *testing.T, s *server, text string) map[string]any {
	t.Helper()
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(mustJSON(m["content"]), text) {
			return en
		}
	}
	t.Fatalf("no user message %q on the branch", text)
	return nil
}

func TestRewindRestoresFilesOnAnyBranch(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "turn one", ToolCalls: []llmtest.ToolCall{
			{ID: "w1", Name: "write", Arguments: `{"path":"src/deep/nested/new.go","content":"package nested // v1\n"}`},
			{ID: "e1", Name: "edit", Arguments: `{"path":"a.txt","oldText":"alpha","newText":"beta"}`},
			{ID: "b1", Name: "bash", Arguments: `{"command":"printf 'BIN\\000\\001\\002' > blob.bin"}`},
		}},
		{Match: `"w1"`, Text: "turn one done"},
		{Match: "turn two", ToolCalls: []llmtest.ToolCall{
			{ID: "b2", Name: "bash", Arguments: `{"command":"rm tool.sh && mkdir -p build && echo object > build/out.o"}`},
			{ID: "w2", Name: "write", Arguments: `{"path":"src/deep/nested/new.go","content":"package nested // v2\n"}`},
		}},
		{Match: `"w2"`, Text: "turn two done"},
		{Match: "turn three", ToolCalls: []llmtest.ToolCall{
			{ID: "e3", Name: "edit", Arguments: `{"path":"a.txt","oldText":"beta","newText":"gamma"}`},
			{ID: "b3", Name: "bash", Arguments: `{"command":"printf 'BIN\\000\\377' > blob.bin"}`},
		}},
		{Match: `"e3"`, Text: "turn three done"},
		{Match: "turn four", ToolCalls: []llmtest.ToolCall{
			{ID: "w4", Name: "write", Arguments: `{"path":"four.txt","content":"new branch\n"}`},
		}},
		{Match: `"w4"`, Text: "turn four done"},
	})
	ws := e.workspace
	// A real repository: a tracked executable, an ignored build folder, a stash.
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "tool.sh"), []byte("#!/bin/sh\necho tool\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, ws, e.home, "init", "-q", "-b", "main")
	gitRun(t, ws, e.home, "add", "-A")
	gitRun(t, ws, e.home, "commit", "-q", "-m", "init")
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("stashed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, ws, e.home, "stash", "-q")
	gitBefore := gitDir(t, ws)

	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("turn one")
	s.waitIdle()
	afterOne := workspaceFiles(t, ws)
	s.prompt("turn two")
	s.waitIdle()
	afterTwo := workspaceFiles(t, ws)
	s.prompt("turn three")
	st := s.waitIdle()
	afterThree := workspaceFiles(t, ws)
	if afterThree["a.txt"].data != "gamma\n" || afterTwo["build/out.o"].data != "object\n" {
		t.Fatalf("the turns did not run: %v", afterThree)
	}
	oldLeaf := s.leaf()
	second := userEntry(t, s, "turn two")["id"].(string)

	// The preview lists exactly what a restore changes, and changes nothing.
	var preview struct {
		Files []struct {
			Path, Change, Diff string
		} `json:"files"`
	}
	s.call("session/rewindPreview", map[string]any{"targetId": second}, &preview)
	if now := workspaceFiles(t, ws); !maps.Equal(now, afterThree) {
		t.Fatalf("the preview changed files: %v", changedPaths(now, afterThree))
	}
	var listed []string
	for _, f := range preview.Files {
		listed = append(listed, f.Path+":"+f.Change)
		switch f.Path {
		case "a.txt":
			if !strings.Contains(f.Diff, "-gamma") || !strings.Contains(f.Diff, "+beta") {
				t.Fatalf("a.txt diff:\n%s", f.Diff)
			}
		case "blob.bin":
			if f.Diff != "" {
				t.Fatalf("binary diff: %q", f.Diff)
			}
		}
	}
	wantListed := []string{"a.txt:modified", "blob.bin:modified", "src/deep/nested/new.go:modified", "tool.sh:added"}
	if !slices.Equal(listed, wantListed) {
		t.Fatalf("preview = %v, want %v", listed, wantListed)
	}

	// Restore to the second prompt: the files of just before its run.
	var nav navResult
	s.call("session/navigate", map[string]any{"targetId": second, "files": "restore"}, &nav)
	now := workspaceFiles(t, ws)
	got := changedPaths(afterThree, now)
	var previewPaths []string
	for _, f := range preview.Files {
		previewPaths = append(previewPaths, f.Path)
	}
	if !slices.Equal(got, previewPaths) {
		t.Fatalf("restore changed %v, the preview said %v", got, previewPaths)
	}
	if nav.Files == nil || nav.Files.Restored != 4 || nav.Files.Deleted != 0 || len(nav.Files.Failed) != 0 {
		t.Fatalf("navigate files = %+v", nav.Files)
	}
	for p, f := range afterOne {
		if now[p] != f {
			t.Fatalf("%s = %+v, want %+v (as after turn one)", p, now[p], f)
		}
	}
	if now["tool.sh"].mode != 0o755 || now["blob.bin"].data != "BIN\x00\x01\x02" {
		t.Fatalf("tool.sh %o, blob.bin %q", now["tool.sh"].mode, now["blob.bin"].data)
	}
	if now["build/out.o"].data != "object\n" {
		t.Fatal("the ignored build output was touched")
	}
	if !maps.Equal(gitDir(t, ws), gitBefore) {
		t.Fatal("the user's .git changed")
	}

	// A new prompt starts a new branch from where the leaf went.
	s.prompt("turn four")
	s.waitIdle()
	four := userEntry(t, s, "turn four")
	if four["parentId"] != nav.LeafID {
		t.Fatalf("turn four's parent %v, want %s", four["parentId"], nav.LeafID)
	}
	afterFour := workspaceFiles(t, ws)
	if afterFour["four.txt"].data != "new branch\n" || afterFour["a.txt"].data != "beta\n" {
		t.Fatalf("turn four: %v", afterFour)
	}
	newLeaf := s.leaf()

	// Back to the old branch's leaf, with its files; then to the new one.
	s.call("session/navigate", map[string]any{"targetId": oldLeaf, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, afterThree) {
		t.Fatalf("old leaf: differs in %v", changedPaths(now, afterThree))
	}
	s.call("session/navigate", map[string]any{"targetId": newLeaf, "files": "restore"}, &nav)
	if now := workspaceFiles(t, ws); !maps.Equal(now, afterFour) {
		t.Fatalf("new leaf: differs in %v", changedPaths(now, afterFour))
	}
	// A plain navigate changes no file.
	first := userEntry(t, s, "turn one")["id"].(string)
	var plain navResult
	s.call("session/navigate", map[string]any{"targetId": first}, &plain)
	if plain.Files != nil {
		t.Fatalf("keep reported files: %+v", plain.Files)
	}
	if now := workspaceFiles(t, ws); !maps.Equal(now, afterFour) {
		t.Fatalf("plain navigate changed %v", changedPaths(now, afterFour))
	}
	if !maps.Equal(gitDir(t, ws), gitBefore) {
		t.Fatal("the user's .git changed")
	}
	// No file of the store landed in the workspace, and the store is private.
	store := filepath.Join(e.home, ".pi", "agent", "checkpoints")
	if info, err := os.Stat(store); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("store %s: %v %v", store, info, err)
	}
	if _, ok := afterFour[".pi"]; ok {
		t.Fatal("a file was added to the workspace")
	}

	// Checkpoints are custom entries; pi builds the same context from the
	// file as pi-lsp does.
	s.call("session/navigate", map[string]any{"targetId": newLeaf}, &nav)
	var ctxMsgs int
	kinds := map[string]int{}
	for _, en := range s.entries() {
		if en["type"] == "message" {
			ctxMsgs++
		}
		if en["type"] == "custom" && en["customType"] == "pi-lsp/checkpoint" {
			var d struct{ Kind string }
			raw, _ := json.Marshal(en["data"])
			_ = json.Unmarshal(raw, &d)
			kinds[d.Kind]++
		}
	}
	if kinds["start"] != 2 || kinds["end"] != 2 {
		t.Fatalf("checkpoints on the new branch: %v", kinds)
	}
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
	// The file's last entry is the new leaf: pi's context is that branch.
	msgs := pitest.BuildContext(t, st.Path)
	if len(msgs) != ctxMsgs {
		t.Fatalf("pi builds %d messages, pi-lsp's branch has %d", len(msgs), ctxMsgs)
	}
	for _, m := range msgs {
		if bytes.Contains(m, []byte("pi-lsp/checkpoint")) {
			t.Fatalf("a checkpoint reached pi's context: %s", m)
		}
	}
}
