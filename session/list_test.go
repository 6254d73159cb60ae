package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestList(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// Each session's messages are later than the one before: pi orders by
	// the latest user or assistant message time.
	stamp := int64(1700000000000)
	mk := func(cwd string, opts CreateOptions, msgs ...string) *Session {
		t.Helper()
		s, err := Create(ctx, root, cwd, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			stamp += 1000
			a := assistant("preamble")
			a.Timestamp = stamp
			must[string](t)(s.AppendMessage(ctx, a))
			must[string](t)(s.AppendMessage(ctx, llm.UserText(m, stamp+1)))
		}
		s.Close()
		return s
	}
	old := mk("/p", CreateOptions{}, "old question")
	named := mk("/p", CreateOptions{}, "named question", "follow-up")
	{
		s := mustOpen(t, named.Path(), false)
		if err := s.SetName(ctx, "My work"); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	empty := mk("/p", CreateOptions{ParentSession: old.Path()})
	mk("/p", CreateOptions{Hidden: true}, "subagent")
	mk("/other", CreateOptions{}, "elsewhere")
	// Not sessions: ignored.
	if err := os.WriteFile(filepath.Join(DirFor(root, "/p"), "junk.jsonl"), []byte("nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// mtimes that would order the list the other way round: ignored, as pi
	// ignores them.
	base := time.Now().Add(-time.Hour)
	for i, s := range []*Session{empty, named, old} {
		tm := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(s.Path(), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(ctx, root, "/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("listed %d sessions: %+v", len(list), list)
	}
	want := []struct {
		id, name, first, parent string
		entries                 int
	}{
		{empty.ID(), "", "", old.Path(), 0},
		{named.ID(), "My work", "named question", "", 5},
		{old.ID(), "", "old question", "", 2},
	}
	for i, w := range want {
		in := list[i]
		if in.ID != w.id || in.Name != w.name || in.FirstMessage != w.first || in.ParentSession != w.parent || in.EntryCount != w.entries || in.Cwd != "/p" {
			t.Errorf("list[%d] = %+v, want %+v", i, in, w)
		}
		if in.Created.IsZero() || in.Modified.IsZero() {
			t.Errorf("list[%d] times %v %v", i, in.Created, in.Modified)
		}
	}
	all, err := ListAll(ctx, root)
	if err != nil || len(all) != 4 {
		t.Errorf("ListAll: %d %v", len(all), err)
	}
	if l, err := List(ctx, root, "/nowhere"); err != nil || len(l) != 0 {
		t.Errorf("missing dir: %v %v", l, err)
	}
	if l, err := ListAll(ctx, filepath.Join(root, "missing")); err != nil || len(l) != 0 {
		t.Errorf("missing root: %v %v", l, err)
	}
}
