package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A workspace root nested in another has its own store: the outer root's
// walk leaves it out (Options.Exclude), and a restore of the outer root
// neither deletes nor rewrites the nested root's files.
func TestExcludedRootIsLeftOut(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	outer := t.TempDir()
	write(t, outer, "a.txt", "one", 0o644)
	write(t, outer, "inner/b.txt", "inner one", 0o644)
	write(t, outer, "inner2/c.txt", "not excluded", 0o644) // a prefix of no excluded folder
	s, err := Open(t.TempDir(), outer, Options{Exclude: []string{"inner"}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := manifestPaths(t, s, snap.ID); !slices.Equal(got, []string{"a.txt", "inner2/c.txt"}) {
		t.Fatalf("manifest = %v", got)
	}
	write(t, outer, "a.txt", "two", 0o644)
	write(t, outer, "inner/b.txt", "inner two", 0o644)
	write(t, outer, "inner/new.txt", "new", 0o644)
	changes, err := s.Changes(ctx, snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("changes = %+v", changes)
	}
	if _, err := s.Restore(ctx, snap.ID, ""); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := read(t, outer, "a.txt"); d != "one" {
		t.Fatalf("a.txt = %q", d)
	}
	if d, _, _ := read(t, outer, "inner/b.txt"); d != "inner two" {
		t.Fatalf("the excluded root's file was restored: %q", d)
	}
	if _, _, ok := read(t, outer, "inner/new.txt"); !ok {
		t.Fatal("the excluded root's file was deleted")
	}
}

// Intend writes the journal before any store's restore starts: a crash
// before Restore leaves a pending restore that the next open finishes.
func TestIntendLeavesARestorePending(t *testing.T) {
	ctx := context.Background()
	s, root := newStore(t)
	write(t, root, "a.txt", "one", 0o644)
	snap, _ := s.Snapshot(ctx)
	write(t, root, "a.txt", "two", 0o644)
	now, _ := s.Snapshot(ctx)
	if err := s.Intend(snap.ID, now.ID); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(s.journalPath()); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("journal: %v %v", info, err)
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
