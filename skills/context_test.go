package skills

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func TestFindContextFiles(t *testing.T) {
	root := t.TempDir()
	tree{
		"agent/AGENTS.md":             "global",
		"repo/CLAUDE.md":              "repo claude",
		"repo/AGENTS.md":              "repo agents wins",
		"repo/pkg/CLAUDE.md":          "pkg claude",
		"repo/pkg/sub/nothing.txt":    "",
		"repo/pkg/sub/deep/AGENTS.MD": "upper-case name",
	}.write(t, root)
	agent := filepath.Join(root, "agent")
	cwd := filepath.Join(root, "repo", "pkg", "sub", "deep")
	files, err := FindContextFiles(context.Background(), env.NewLocal(root), cwd, agent)
	if err != nil {
		t.Fatal(err)
	}
	want := []ContextFile{
		{filepath.Join(agent, "AGENTS.md"), "global"},
		{filepath.Join(root, "repo", "AGENTS.md"), "repo agents wins"},
		{filepath.Join(root, "repo", "pkg", "CLAUDE.md"), "pkg claude"},
		{filepath.Join(cwd, "AGENTS.MD"), "upper-case name"},
	}
	// Directories above the temp root may hold context files of their own
	// (none on a clean machine); compare from the agent file on.
	if len(files) < len(want) {
		t.Fatalf("files = %+v", files)
	}
	if !reflect.DeepEqual(files[0], want[0]) || !reflect.DeepEqual(files[len(files)-3:], want[1:]) {
		t.Errorf("files =\n%+v\nwant\n%+v", files, want)
	}

	// The agent directory also on the cwd chain: listed once, first.
	files, err = FindContextFiles(context.Background(), env.NewLocal(root), agent, agent)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if f.Path == want[0].Path {
			n++
		}
	}
	if n != 1 || files[0] != want[0] {
		t.Errorf("agent file listed %d times: %+v", n, files)
	}
}

func TestFindContextFilesUnreadable(t *testing.T) {
	root := t.TempDir()
	// AGENTS.md is a directory: not a context file, and CLAUDE.md beside it
	// is used.
	tree{"a/AGENTS.md/x": "", "a/CLAUDE.md": "fallback", "a/b/CLAUDE.md": "fine"}.write(t, root)
	files, err := FindContextFiles(context.Background(), env.NewLocal(root), filepath.Join(root, "a", "b"), "")
	if err != nil {
		t.Errorf("err = %v", err)
	}
	n := len(files)
	if n < 2 || files[n-2].Content != "fallback" || files[n-1].Content != "fine" {
		t.Errorf("readable files lost: %+v", files)
	}
}

// readCounter is an FS that records every ReadFile.
type readCounter struct {
	env.Env
	reads []string
}

func (r *readCounter) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r.reads = append(r.reads, p)
	return r.Env.ReadFile(ctx, p)
}

// Only the files that exist are read: existence comes from one listing per
// directory, never from a read that fails (an editor logs those as errors).
func TestFindContextFilesReadsOnlyWhatExists(t *testing.T) {
	root := t.TempDir()
	tree{"agent/x.txt": "", "repo/Agents.md": "mixed case", "repo/src/CLAUDE.md": "src"}.write(t, root)
	fsys := &readCounter{Env: env.NewLocal(root)}
	cwd := filepath.Join(root, "repo", "src")
	files, err := FindContextFiles(context.Background(), fsys, cwd, filepath.Join(root, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(files)
	if n < 2 || files[n-2].Content != "mixed case" || files[n-1].Content != "src" {
		t.Fatalf("files = %+v", files)
	}
	for _, p := range fsys.reads {
		found := false
		for _, f := range files {
			found = found || f.Path == p
		}
		if !found {
			t.Errorf("read %s, which is not a context file", p)
		}
	}
	if len(fsys.reads) != len(files) {
		t.Errorf("reads = %v for %d files", fsys.reads, len(files))
	}
}
