package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestTornAndCorruptLines(t *testing.T) {
	good := []string{
		testHeader,
		msgLine("aa000001", "", "user", "one"),
		msgLine("aa000002", "aa000001", "assistant", "r1"),
		msgLine("aa000003", "aa000002", "user", "two"),
	}
	last := msgLine("aa000004", "aa000003", "assistant", "r2")
	body := strings.Join(good, "\n") + "\n"
	tests := []struct {
		name     string
		content  string
		entries  int
		warnings int
		leaf     string
	}{
		{"intact", body + last + "\n", 4, 0, "aa000004"},
		{"last line without newline", body + last, 4, 0, "aa000004"},
		{"torn in a string", body + last[:len(last)/2], 3, 1, "aa000003"},
		{"torn after a value", body + last[:strings.Index(last, `"message"`)-1], 3, 1, "aa000003"},
		{"torn at the last brace", body + last[:len(last)-1], 3, 1, "aa000003"},
		{"torn with a newline", body + last[:40] + "\n", 3, 1, "aa000003"},
		{"garbage tail", body + "\x00\x00\x00\xff", 3, 1, "aa000003"},
		{"corrupt middle line", strings.Join(good[:2], "\n") + "\n{\"type\":\"message\",\"id\":\"zz\n" + strings.Join(good[2:], "\n") + "\n", 3, 1, "aa000003"},
		{"blank lines", body + "\n\n  \n" + last + "\n", 4, 0, "aa000004"},
		{"not an object", body + "[1,2]\n", 3, 1, "aa000003"},
		{"entry without id", body + `{"type":"message","parentId":null}` + "\n", 3, 1, "aa000003"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := dir + "/s.jsonl"
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, path, false)
			if s.EntryCount() != tc.entries || len(s.Warnings()) != tc.warnings || s.LeafID() != tc.leaf {
				t.Fatalf("entries %d leaf %s warnings %q", s.EntryCount(), s.LeafID(), s.Warnings())
			}
			id, err := s.AppendMessage(context.Background(), user("after"))
			if err != nil {
				t.Fatal(err)
			}
			if e := must[*Entry](t)(s.Entry(id)); e.ParentID != tc.leaf {
				t.Errorf("appended under %s, want the last good entry %s", e.ParentID, tc.leaf)
			}
			s.Close()
			b, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(b), tc.content) {
				t.Error("existing bytes were changed")
			}
			r := mustOpen(t, path, true)
			if r.EntryCount() != tc.entries+1 || r.LeafID() != id {
				t.Errorf("reload: %d entries, leaf %s, warnings %q", r.EntryCount(), r.LeafID(), r.Warnings())
			}
			c := must[Context](t)(r.BuildContext(context.Background()))
			if got := texts(c.Messages); got[len(got)-1] != "user:after" || len(got) != tc.entries+1 {
				t.Errorf("context %v", got)
			}
		})
	}
}

func TestUndecodableEntryIsLeftOut(t *testing.T) {
	// Structurally sound but not valid JSON inside: found when decoded.
	bad := `{"type":"message","id":"bb000002","parentId":"bb000001","timestamp":"x","message":{"role":"user","content":[tru]}}`
	s := mustOpen(t, writeLines(t, t.TempDir(), testHeader, msgLine("bb000001", "", "user", "one"), bad, msgLine("bb000003", "bb000002", "user", "three")), true)
	c, err := s.BuildContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(c.Messages); !equalStrings(got, []string{"user:one", "user:three"}) {
		t.Errorf("context %v", got)
	}
	if len(s.Warnings()) != 1 || !strings.Contains(s.Warnings()[0], "bb000002") {
		t.Errorf("warnings %q", s.Warnings())
	}
	if _, err := s.Entry("bb000002"); err == nil {
		t.Error("Entry decoded invalid JSON")
	}
	roots := must[[]*TreeNode](t)(s.Tree(context.Background()))
	if roots[0].Children[0].Type != "corrupt" {
		t.Errorf("tree node %+v", roots[0].Children[0])
	}
}

func TestManyCorruptLines(t *testing.T) {
	lines := []string{testHeader}
	for i := range 300 {
		lines = append(lines, msgLine(fmt.Sprintf("cc%06d", i), "", "user", "x"), "{broken")
	}
	s := mustOpen(t, writeLines(t, t.TempDir(), lines...), true)
	w := s.Warnings()
	if s.EntryCount() != 300 || len(w) != maxWarnings+1 || !strings.Contains(w[maxWarnings], "200 more") {
		t.Errorf("%d entries, %d warnings, last %q", s.EntryCount(), len(w), w[len(w)-1])
	}
}
