package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func manifestPaths(t *testing.T, s *Store, id string) []string {
	t.Helper()
	m, err := s.Manifest(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	return out
}

// The parallel walk applies ignore files where git does: a folder's
// .gitignore and .ignore to everything under it, deeper rules over
// shallower ones, and never a nested repository.
func TestWalkAppliesIgnoreFilesAtEveryDepth(t *testing.T) {
	s, root := newStore(t)
	write(t, root, ".gitignore", "*.log\n", 0o644)
	write(t, root, "top.log", "x", 0o644)
	write(t, root, "src/a/b/.gitignore", "!keep.log\nsecret/\n", 0o644)
	write(t, root, "src/a/b/.ignore", "tmp.txt\n", 0o644)
	write(t, root, "src/a/b/keep.log", "kept", 0o644)
	write(t, root, "src/a/b/drop.txt.log", "x", 0o644)
	write(t, root, "src/a/b/tmp.txt", "x", 0o644)
	write(t, root, "src/a/b/secret/k.txt", "x", 0o644)
	write(t, root, "src/a/b/c/d/e/deep.txt", "deep", 0o644)
	write(t, root, "src/a/b/c/d/e/also.log", "x", 0o644)
	write(t, root, "src/a/b/c/d/e/keep.log", "kept too", 0o644)
	write(t, root, "src/a/tmp.txt", "not under b", 0o644)
	write(t, root, "src/a/secret/k.txt", "not under b", 0o644)
	write(t, root, "src/vendor/.git/HEAD", "ref: refs/heads/main\n", 0o644)
	write(t, root, "src/vendor/lib.go", "package lib\n", 0o644)
	for i := range 30 { // many folders, so the goroutines share them out
		write(t, root, filepath.Join("many", string(rune('a'+i%26))+string(rune('a'+i/26)), "f.txt"), "f", 0o644)
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := manifestPaths(t, s, snap.ID)
	want := []string{".gitignore", "src/a/b/.gitignore", "src/a/b/.ignore", "src/a/b/c/d/e/deep.txt",
		"src/a/b/c/d/e/keep.log", "src/a/b/keep.log", "src/a/secret/k.txt", "src/a/tmp.txt", "src/vendor/lib.go"}
	var rest []string
	for _, p := range got {
		if filepath.Dir(filepath.Dir(p)) != "many" {
			rest = append(rest, p)
		}
	}
	if !slices.Equal(rest, want) {
		t.Fatalf("checkpoint holds %v\nwant %v", rest, want)
	}
	if len(got)-len(rest) != 30 || !slices.IsSorted(got) {
		t.Fatalf("many/: %d files (want 30), sorted %v", len(got)-len(rest), slices.IsSorted(got))
	}
}

// An unchanged workspace gives the previous manifest's id and writes
// nothing to the store; a change gives a new manifest, and changing it back
// gives the first id again.
func TestUnchangedSnapshotWritesNothing(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	for i := range 20 {
		write(t, root, filepath.Join("d", string(rune('a'+i))+".txt"), "same", 0o644)
	}
	write(t, root, "x.txt", "one", 0o644)
	ageAll(t, root)
	first, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	storeBefore := storeFiles(t, s.Dir())
	again, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.Hashed != 0 {
		t.Fatalf("unchanged: id %s (first %s), hashed %d", again.ID, first.ID, again.Hashed)
	}
	if after := storeFiles(t, s.Dir()); !maps.Equal(after, storeBefore) {
		t.Fatalf("an unchanged snapshot wrote to the store:\nbefore %v\nafter  %v", storeBefore, after)
	}

	write(t, root, "x.txt", "two", 0o644)
	changed, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if changed.ID == first.ID || changed.Hashed != 1 {
		t.Fatalf("changed: id %s (first %s), hashed %d", changed.ID, first.ID, changed.Hashed)
	}
	write(t, root, "x.txt", "one", 0o644)
	back, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != first.ID {
		t.Fatalf("changed back: id %s, want the first %s", back.ID, first.ID)
	}

	// A manifest removed behind the store's back is written again, not
	// reused from memory.
	if err := os.Remove(filepath.Join(s.Dir(), "manifests", first.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Manifest(first.ID); err != nil {
		t.Fatalf("the manifest was not written again: %v", err)
	}
}

func ageAll(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-24 * time.Hour)
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
}

// storeFiles maps every file of the store to its size and mtime.
func storeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		out[p] = fmt.Sprintf("%d bytes, mtime %s", info.Size(), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
