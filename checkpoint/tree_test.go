package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// treeObjects lists the folder objects in the store.
func treeObjects(t *testing.T, s *Store) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(s.path("trees"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out[filepath.Base(filepath.Dir(p))+d.Name()] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A change writes the objects of the folders it changed and of their
// parents only; the other folders keep their objects.
func TestTreeManifestWritesOnlyChangedFolders(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	for _, d := range []string{"a/b", "a/c", "d", "e/f/g"} {
		for _, f := range []string{"x.txt", "y.txt"} {
			write(t, root, d+"/"+f, d+f, 0o644)
		}
	}
	write(t, root, "a-b", "sorts between a and a/", 0o644)
	write(t, root, "top.sh", "#!/bin/sh\n", 0o755)
	first, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Folders: a, a/b, a/c, d, e, e/f, e/f/g (the root is the manifest).
	before := treeObjects(t, s)
	if len(before) != 7 {
		t.Fatalf("%d folder objects after the first checkpoint, want 7", len(before))
	}
	write(t, root, "a/b/x.txt", "changed", 0o644)
	second, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := treeObjects(t, s)
	var fresh []string
	for id := range after {
		if !before[id] {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) != 2 { // a/b and a
		t.Fatalf("%d new folder objects after changing a/b/x.txt, want 2 (a/b, a)", len(fresh))
	}
	m1, err := s.Manifest(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := s.Manifest(second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(m2.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) }) {
		t.Fatalf("manifest not sorted by path: %v", m2.Files)
	}
	if len(m1.Files) != 10 || len(m2.Files) != 10 {
		t.Fatalf("files: %d and %d, want 10", len(m1.Files), len(m2.Files))
	}
	for i := range m1.Files {
		same := m1.Files[i] == m2.Files[i]
		if (m1.Files[i].Path == "a/b/x.txt") == same {
			t.Fatalf("%s: first %+v second %+v", m1.Files[i].Path, m1.Files[i], m2.Files[i])
		}
	}
	// What the second checkpoint wrote: the changed file's blob, two
	// folder objects, the root, the stat cache; far less than all.
	if second.Written <= 0 || second.Written >= first.Written {
		t.Fatalf("written: first %d, second %d", first.Written, second.Written)
	}
	// A restore of the first checkpoint reads the old folder objects.
	if _, err := s.Restore(ctx, first.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := read(t, root, "a/b/x.txt"); data != "a/bx.txt" {
		t.Fatalf("restored a/b/x.txt = %q", data)
	}
}

// Checkpoints of format 1 (a flat manifest) are still read.
func TestFormatOneManifestIsRead(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a/x.txt", "old x", 0o644)
	write(t, root, "y.txt", "old y", 0o600)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Manifest(snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	v1 := (&Manifest{Files: slices.Clone(m.Files)}).encode()
	if !strings.HasPrefix(string(v1), manifestHeader) {
		t.Fatalf("format 1 text: %q", v1)
	}
	id := manifestID(v1)
	if err := os.WriteFile(s.path("manifests", id), v1, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Manifest(id)
	if err != nil || !slices.Equal(got.Files, m.Files) {
		t.Fatalf("format 1 manifest = %v, %v; want %v", got, err, m.Files)
	}
	write(t, root, "a/x.txt", "new x", 0o644)
	if err := os.Remove(filepath.Join(root, "y.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := read(t, root, "a/x.txt"); data != "old x" {
		t.Fatalf("a/x.txt = %q", data)
	}
	if data, mode, _ := read(t, root, "y.txt"); data != "old y" || mode != 0o600 {
		t.Fatalf("y.txt = %q %o", data, mode)
	}
}

// A missing or tampered folder object, or one that names a file outside
// its folder, makes the checkpoint corrupt, and nothing is restored.
func TestTreeFaultsAreCorrupt(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a/b/x.txt", "x", 0o644)
	write(t, root, "y.txt", "y", 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var some string
	for id := range treeObjects(t, s) {
		some = id
	}
	p := s.treePath(some)
	saved, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(slices.Clone(saved), "tampered\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Manifest(snap.ID); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("tampered folder: err = %v, want ErrCorrupt", err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, snap.ID, ""); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("missing folder: err = %v, want ErrCorrupt", err)
	}
	for _, name := range []string{"..", ".git", "a/b", "", "."} {
		text := encodeTree([]treeEntry{{Name: name, File: File{Mode: 0o644, Hash: strings.Repeat("a", 64)}}})
		id := manifestID(text)
		if err := os.WriteFile(s.path("manifests", id), text, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Restore(ctx, id, ""); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("name %q: err = %v, want ErrCorrupt", name, err)
		}
	}
}

// Prune removes the folder objects no kept checkpoint uses.
func TestPruneRemovesUnusedTrees(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a/x.txt", "x", 0o644)
	write(t, root, "b/y.txt", "y", 0o644)
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, root, "a/x.txt", "x2", 0o644)
	kept, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sess := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(sess, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Ref(sess, kept.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(treeObjects(t, s)); n != 3 { // a (twice), b
		t.Fatalf("%d folder objects, want 3", n)
	}
	s.opts.Now = func() time.Time { return time.Now().Add(2 * PruneGrace) }
	st, err := s.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Manifests != 1 || st.Trees != 1 {
		t.Fatalf("pruned %+v, want 1 manifest and 1 folder object", st)
	}
	if _, err := s.Manifest(kept.ID); err != nil {
		t.Fatalf("the kept checkpoint: %v", err)
	}
}

// FuzzParseTree: the folder-object decoder never panics, accepts only names
// a restore may write, and what it accepts encodes back to the same
// entries.
func FuzzParseTree(f *testing.F) {
	f.Add([]byte(treeHeader))
	f.Add(encodeTree([]treeEntry{
		{Name: "a", Tree: strings.Repeat("0", 32)},
		{Name: "b c.txt", File: File{Mode: 0o755, Size: 3, Hash: strings.Repeat("f", 64)}},
		{Name: "link", File: File{Mode: fs.ModeSymlink | 0o777, Hash: strings.Repeat("1", 64)}},
	}))
	f.Add([]byte(treeHeader + "d 0123456789abcdef0123456789abcdef \"..\"\n"))
	f.Add([]byte(treeHeader + "f " + strings.Repeat("a", 64) + " 644 1 \"x\"\nf " + strings.Repeat("a", 64) + " 644 1 \"x\"\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		es, err := parseTree(text)
		if err != nil {
			return
		}
		for _, e := range es {
			if strings.Contains(e.Name, "/") || !LocalPath(e.Name) {
				t.Fatalf("accepted name %q", e.Name)
			}
		}
		again, err := parseTree(encodeTree(es))
		if err != nil || !slices.Equal(again, es) {
			t.Fatalf("round trip: %v %v, want %v", again, err, es)
		}
	})
}

// FuzzDecodeManifest: the format 1 decoder never panics and accepts only
// paths inside the workspace.
func FuzzDecodeManifest(f *testing.F) {
	m := &Manifest{Files: []File{{Path: "a/b.txt", Mode: 0o644, Size: 1, Hash: strings.Repeat("a", 64)}}}
	f.Add(m.encode())
	f.Add([]byte(manifestHeader + "x 1 2 \"../y\"\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		got, err := decodeManifest(manifestID(text), text)
		if err != nil {
			return
		}
		for _, f := range got.Files {
			if !LocalPath(f.Path) {
				t.Fatalf("accepted path %q", f.Path)
			}
		}
	})
}

// A checkpoint after a small change appends the stat cache's changes to
// its log instead of rewriting it; a reopened store reads both.
func TestStatCacheLogsChanges(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	for i := range 200 {
		write(t, root, fmt.Sprintf("d%d/f%03d.txt", i%10, i), fmt.Sprint(i), 0o644)
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	if _, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	base, err := os.Stat(s.path("statcache"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "d3/f003.txt", "changed", 0o644)
	_ = os.Chtimes(filepath.Join(root, "d3", "f003.txt"), old, old)
	if err := os.Remove(filepath.Join(root, "d4", "f004.txt")); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(s.path("statcache"))
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(base.ModTime()) || after.Size() != base.Size() {
		t.Fatal("the stat cache's base was rewritten for one changed file")
	}
	logInfo, err := os.Stat(s.path("statcache.log"))
	if err != nil || logInfo.Size() == 0 || logInfo.Size() >= base.Size()/2 {
		t.Fatalf("statcache.log: %v %v (base %d bytes)", logInfo, err, base.Size())
	}
	// A reopened store knows every file: nothing is hashed again.
	s2, err := Open(filepath.Dir(s.Dir()), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s2.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hashed != 0 || again.ID != snap.ID || again.Files != 199 {
		t.Fatalf("reopened: hashed %d, id %s (want %s), files %d", again.Hashed, again.ID, snap.ID, again.Files)
	}
}
