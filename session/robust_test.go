package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A symlink or a hard link to a locked session finds the same lock.
func TestLockKeyedByInode(t *testing.T) {
	dir := t.TempDir()
	path := writeLines(t, dir, testHeader, msgLine("aa000001", "", "user", "one"))
	s := mustOpen(t, path, false)
	link := filepath.Join(dir, "link.jsonl")
	hard := filepath.Join(t.TempDir(), "hard.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, link, hard} {
		_, err := Open(context.Background(), p, OpenOptions{})
		var le *LockedError
		if !errors.As(err, &le) {
			t.Fatalf("%s: second writer: %v", p, err)
		}
		if le.PID != os.Getpid() {
			t.Errorf("%s: locked by pid %d, want %d", p, le.PID, os.Getpid())
		}
	}
	s.Close()
	s2 := mustOpen(t, link, false)
	s2.Close()
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Error("a .lock file was created beside the session")
	}
}

// A file that is not a session leaves nothing behind and says so with
// ErrNotSession.
func TestNotASessionLeavesNoLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	if err := os.WriteFile(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, OpenOptions{})
	if !errors.Is(err, ErrNotSession) {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}

// A version above 3 opens read-only, with a clear warning, and nothing is
// ever appended.
func TestNewerVersionReadOnly(t *testing.T) {
	dir := t.TempDir()
	h := strings.Replace(testHeader, `"version":3`, `"version":4`, 1)
	path := writeLines(t, dir, h, msgLine("aa000001", "", "user", "one"))
	before, _ := os.ReadFile(path)
	s := mustOpen(t, path, false)
	if !s.ReadOnly() || !strings.Contains(strings.Join(s.Warnings(), "\n"), "version 4") {
		t.Fatalf("read-only %v, warnings %q", s.ReadOnly(), s.Warnings())
	}
	_, err := s.AppendMessage(context.Background(), user("x"))
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrReadOnly) {
		t.Fatalf("append: %v", err)
	}
	s.Close()
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the file changed")
	}
	// No lock was taken: a second opener reads it too.
	s2 := mustOpen(t, path, false)
	s2.Close()
}

// Glued and torn lines in the middle: whole entries are split out, orphans
// are re-linked to the last entry before the break, and a warning names the
// line; no history is dropped.
func TestGluedAndTornMiddleLines(t *testing.T) {
	l := []string{
		msgLine("aa000001", "", "user", "one"),
		msgLine("aa000002", "aa000001", "assistant", "two"),
		msgLine("aa000003", "aa000002", "user", "three"),
		msgLine("aa000004", "aa000003", "assistant", "four"),
		msgLine("aa000005", "aa000004", "user", "five"),
	}
	tests := []struct {
		name  string
		lines []string
		msgs  int
		warn  string
	}{
		{"glued", []string{testHeader, l[0], l[1] + l[2], l[3], l[4]}, 5, "line 3: 2 entries glued"},
		{"torn then glued", []string{testHeader, l[0], l[1][:len(l[1])/2] + l[2], l[3], l[4]}, 4, "line 3"},
		{"torn middle", []string{testHeader, l[0], l[1], l[2][:30], l[3], l[4]}, 4, "line 5: entry aa000004: its parent aa000003"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeLines(t, t.TempDir(), tc.lines...)
			s := mustOpen(t, path, false)
			c, err := s.BuildContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Messages) != tc.msgs {
				t.Fatalf("messages %d, want %d; warnings %q", len(c.Messages), tc.msgs, s.Warnings())
			}
			if !strings.Contains(strings.Join(s.Warnings(), "\n"), tc.warn) {
				t.Fatalf("warnings %q lack %q", s.Warnings(), tc.warn)
			}
		})
	}
}

// An entry with a wrongly typed field is left out of the context and of
// Branch with one warning naming its line; the rest works.
func TestWronglyTypedEntryLeftOut(t *testing.T) {
	bad := strings.Replace(msgLine("aa000002", "aa000001", "assistant", "two"), `"role":"assistant"`, `"role":"assistant","usage":"x"`, 1)
	path := writeLines(t, t.TempDir(), testHeader, msgLine("aa000001", "", "user", "one"), bad, msgLine("aa000003", "aa000002", "user", "three"))
	s := mustOpen(t, path, false)
	c, err := s.BuildContext(context.Background())
	if err != nil || len(c.Messages) != 2 {
		t.Fatalf("context: %v %d", err, len(c.Messages))
	}
	b, err := s.Branch("")
	if err != nil || len(b) != 2 {
		t.Fatalf("branch: %v %d", err, len(b))
	}
	if _, err := s.ContextEntries(context.Background()); err != nil {
		t.Fatal(err)
	}
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "line 3") {
		t.Fatalf("warnings: %q", ws)
	}
}

func FuzzSplitEntries(f *testing.F) {
	f.Add([]byte(msgLine("aa000001", "", "user", "one") + msgLine("aa000002", "aa000001", "user", "two")))
	f.Add([]byte(`{"type":"message","id":"x` + msgLine("aa000002", "", "user", "two")))
	f.Fuzz(func(t *testing.T, line []byte) {
		last := 0
		for _, p := range splitEntries(line) {
			if p[0] < last || p[1] > len(line) || p[0] >= p[1] {
				t.Fatalf("bad piece %v of %d bytes", p, len(line))
			}
			if _, err := scanLine(line[p[0]:p[1]]); err != nil {
				t.Fatalf("piece does not scan: %v", err)
			}
			last = p[1]
		}
	})
}
