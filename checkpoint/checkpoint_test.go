package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, root, rel, data string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, root, rel string) (string, os.FileMode, bool) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), info.Mode().Perm(), true
}

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir()) // no global excludes of the machine
	t.Setenv("XDG_CONFIG_HOME", "")
	root := t.TempDir()
	s, err := Open(t.TempDir(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

func TestRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, ".gitignore", "build/\n*.log\n", 0o644)
	write(t, root, "a.txt", "one\n", 0o644)
	write(t, root, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, root, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	first, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Files != 3 { // .gitignore, a.txt, run.sh
		t.Fatalf("files = %d, want 3", first.Files)
	}
	// Changes of every kind.
	write(t, root, "a.txt", "two\n", 0o600)
	if err := os.Remove(filepath.Join(root, "run.sh")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "deep/er/x.bin", "\x00\x01\x02", 0o644)
	write(t, root, "build/out.o", "obj", 0o644)
	write(t, root, "x.log", "log", 0o644)
	write(t, root, ".git/HEAD", "changed by git\n", 0o644)

	changes, err := s.Changes(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind+" "+c.Path)
	}
	want := "modified a.txt|deleted deep/er/x.bin|added run.sh"
	if strings.Join(got, "|") != want {
		t.Fatalf("changes = %q, want %q", strings.Join(got, "|"), want)
	}
	second, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Restore(ctx, first.ID, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored != 2 || res.Deleted != 1 || len(res.Failed) != 0 {
		t.Fatalf("result = %+v", res)
	}
	if d, m, _ := read(t, root, "a.txt"); d != "one\n" || m != 0o644 {
		t.Fatalf("a.txt = %q %o", d, m)
	}
	if d, m, _ := read(t, root, "run.sh"); d != "#!/bin/sh\necho hi\n" || m != 0o755 {
		t.Fatalf("run.sh = %q %o", d, m)
	}
	if _, err := os.Stat(filepath.Join(root, "deep")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("emptied folders stay: %v", err)
	}
	for _, ig := range []string{"build/out.o", "x.log"} {
		if _, _, ok := read(t, root, ig); !ok {
			t.Fatalf("ignored %s was touched", ig)
		}
	}
	if d, _, _ := read(t, root, ".git/HEAD"); d != "changed by git\n" {
		t.Fatalf(".git was touched: %q", d)
	}
	if _, _, ok := s.Pending(); ok {
		t.Fatal("journal left after a complete restore")
	}
	// And forward again: the replaced files come back.
	if _, err := s.Restore(ctx, second.ID, ""); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := read(t, root, "deep/er/x.bin"); d != "\x00\x01\x02" {
		t.Fatalf("x.bin = %q", d)
	}
	if _, _, ok := read(t, root, "run.sh"); ok {
		t.Fatal("run.sh not deleted going forward")
	}
}

func TestNoRehashOfUnchangedFiles(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	for i := range 50 {
		write(t, root, filepath.Join("d", string(rune('a'+i%26)), "f"+string(rune('a'+i/26))), "x", 0o644)
	}
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	a, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hashed != 50 {
		t.Fatalf("first snapshot hashed %d, want 50", a.Hashed)
	}
	b, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b.Hashed != 0 || b.ID != a.ID {
		t.Fatalf("unchanged workspace: hashed %d, id %s vs %s", b.Hashed, b.ID, a.ID)
	}
	// A reopened store keeps its stat cache.
	s2, err := Open(filepath.Dir(s.Dir()), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s2.Snapshot(ctx)
	if err != nil || c.Hashed != 0 {
		t.Fatalf("reopened: hashed %d, %v", c.Hashed, err)
	}
	write(t, root, "d/a/fa", "y", 0o644)
	d, err := s2.Snapshot(ctx)
	if err != nil || d.Hashed != 1 || d.ID == a.ID {
		t.Fatalf("one change: hashed %d, %v", d.Hashed, err)
	}
}

func TestCorruptCheckpointRestoresNothing(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a.txt", "one", 0o644)
	write(t, root, "b.txt", "bee", 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "a.txt", "two", 0o644)
	write(t, root, "b.txt", "BEE", 0o644)
	m, _ := s.Manifest(snap.ID)
	// Corrupt the blob of b.txt.
	for _, f := range m.Files {
		if f.Path == "b.txt" {
			if err := os.WriteFile(s.blobPath(f.Hash), []byte("evil"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.Restore(ctx, snap.ID, ""); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "b.txt") {
		t.Fatalf("err = %v, want ErrCorrupt naming b.txt", err)
	}
	if d, _, _ := read(t, root, "a.txt"); d != "two" {
		t.Fatalf("partial restore: a.txt = %q", d)
	}
	if _, err := s.Restore(ctx, strings.Repeat("0", 32), ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestManifestOutsideWorkspaceIsRefused(t *testing.T) {
	s, _ := newStore(t)
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", ".git/config", "a/.git/hooks/pre-commit"} {
		m := &Manifest{Files: []File{{Path: p, Mode: 0o644, Hash: strings.Repeat("a", 64)}}}
		text := m.encode()
		id := manifestID(text)
		if err := os.WriteFile(s.path("manifests", id), text, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Restore(context.Background(), id, ""); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: err = %v, want ErrCorrupt", p, err)
		}
	}
}

func TestRestoreThroughSymlinkIsRefused(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	outside := t.TempDir()
	write(t, root, "sub/f.txt", "inside", 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".ignore", "/sub\n", 0o644) // the link is ignored, so it stays
	res, err := s.Restore(ctx, snap.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); err == nil {
		t.Fatal("a restore wrote outside the workspace through a symlink")
	}
	found := false
	for _, f := range res.Failed {
		found = found || f.Path == "sub/f.txt"
	}
	if !found {
		t.Fatalf("failures = %+v", res.Failed)
	}
}

func TestUnwritableFileIsReportedOthersRestored(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only folders")
	}
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "ro/a.txt", "old", 0o644)
	write(t, root, "b.txt", "old", 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "ro/a.txt", "new", 0o444)
	write(t, root, "b.txt", "new", 0o644)
	if err := os.Chmod(filepath.Join(root, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "ro"), 0o755) })
	res, err := s.Restore(ctx, snap.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Path != "ro/a.txt" || res.Restored != 1 {
		t.Fatalf("result = %+v", res)
	}
	if d, _, _ := read(t, root, "b.txt"); d != "old" {
		t.Fatalf("b.txt = %q", d)
	}
}

func TestFolderInTheWayIsReported(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "x", "file", 0o644)
	write(t, root, "y.txt", "old", 0o644)
	snap, _ := s.Snapshot(ctx)
	os.Remove(filepath.Join(root, "x"))
	write(t, root, "x/keep.log", "ignored", 0o644)
	write(t, root, ".ignore", "*.log\n", 0o644)
	write(t, root, "y.txt", "new", 0o644)
	res, err := s.Restore(ctx, snap.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Path != "x" {
		t.Fatalf("result = %+v", res)
	}
	if d, _, _ := read(t, root, "y.txt"); d != "old" {
		t.Fatalf("y.txt = %q", d)
	}
}

func TestInterruptedRestoreIsPendingAndFinishes(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a.txt", "one", 0o644)
	snap, _ := s.Snapshot(ctx)
	write(t, root, "a.txt", "two", 0o644)
	now, _ := s.Snapshot(ctx)
	// What a kill -9 after the journal was written leaves.
	if err := os.WriteFile(s.journalPath(), []byte(`{"target":"`+snap.ID+`","before":"`+now.ID+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s2, _ := Open(filepath.Dir(s.Dir()), root, Options{})
	target, before, ok := s2.Pending()
	if !ok || target != snap.ID || before != now.ID {
		t.Fatalf("pending = %q %q %v", target, before, ok)
	}
	if _, err := s2.Restore(ctx, target, before); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := read(t, root, "a.txt"); d != "one" {
		t.Fatalf("a.txt = %q", d)
	}
	if _, _, ok := s2.Pending(); ok {
		t.Fatal("still pending")
	}
}

func TestSkipsLargeFilesAndStoreModes(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	root := t.TempDir()
	storeRoot := filepath.Join(t.TempDir(), "checkpoints")
	s, err := Open(storeRoot, root, Options{MaxFileBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "big", strings.Repeat("x", 11), 0o644)
	write(t, root, "small", "x", 0o644)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Files != 1 || len(snap.Skipped) != 1 || snap.Skipped[0] != "big" {
		t.Fatalf("snap = %+v", snap)
	}
	err = filepath.Walk(storeRoot, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPruneKeepsReferencedCheckpoints(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	clock := time.Now()
	s.opts.Now = func() time.Time { return clock }
	sessions := t.TempDir()
	keep, gone := filepath.Join(sessions, "keep.jsonl"), filepath.Join(sessions, "gone.jsonl")
	os.WriteFile(keep, nil, 0o600)
	write(t, root, "a.txt", "kept", 0o644)
	a, _ := s.Snapshot(ctx)
	write(t, root, "a.txt", "dropped", 0o644)
	b, _ := s.Snapshot(ctx)
	if err := s.Ref(keep, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Ref(gone, b.ID); err != nil {
		t.Fatal(err)
	}
	st, err := s.Prune(ctx)
	if err != nil || st.Manifests != 0 {
		t.Fatalf("within the grace period: %+v %v", st, err)
	}
	clock = clock.Add(2 * PruneGrace)
	st, err = s.Prune(ctx)
	if err != nil || st.Manifests != 1 || st.Blobs != 1 {
		t.Fatalf("prune = %+v %v", st, err)
	}
	if _, err := s.Manifest(a.ID); err != nil {
		t.Fatalf("referenced checkpoint pruned: %v", err)
	}
	if _, err := s.Manifest(b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unreferenced checkpoint kept: %v", err)
	}
	if _, err := s.Restore(ctx, a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := read(t, root, "a.txt"); d != "kept" {
		t.Fatalf("a.txt = %q", d)
	}
}
