package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// buildTree writes u1 a1 u2 a2, then branches from a1 with u3 a3.
// It returns the session and the ids by name.
func buildTree(t *testing.T) (*Session, map[string]string) {
	t.Helper()
	ctx := context.Background()
	s := mustCreate(t)
	id := map[string]string{}
	add := func(name string, f func() (string, error)) {
		t.Helper()
		v, err := f()
		if err != nil {
			t.Fatal(err)
		}
		id[name] = v
	}
	add("u1", func() (string, error) { return s.AppendMessage(ctx, user("one")) })
	add("a1", func() (string, error) { return s.AppendMessage(ctx, assistant("r1")) })
	add("u2", func() (string, error) { return s.AppendMessage(ctx, user("two")) })
	add("a2", func() (string, error) { return s.AppendMessage(ctx, assistant("r2")) })
	if err := s.Navigate(ctx, id["a1"]); err != nil {
		t.Fatal(err)
	}
	add("u3", func() (string, error) { return s.AppendMessage(ctx, user("three")) })
	add("a3", func() (string, error) { return s.AppendMessage(ctx, assistant("r3")) })
	return s, id
}

func contextTexts(t *testing.T, s *Session) []string {
	t.Helper()
	c, err := s.BuildContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return texts(c.Messages)
}

// piView computes the context as pi 0.73.1 does on load: the last entry of
// the file is the leaf (pi knows nothing of leaf entries).
func piView(t *testing.T, path string) []string {
	t.Helper()
	s := mustOpen(t, path, true)
	lines := fileLines(t, path)
	var last struct{ ID string }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 1 {
		return nil
	}
	i, ok := s.idx.lookup(last.ID)
	if !ok {
		t.Fatalf("last entry %s not indexed", last.ID)
	}
	s.idx.leaf = i // what pi does: no leaf-entry handling
	return contextTexts(t, s)
}

func TestNavigateAndLeafEntries(t *testing.T) {
	ctx := context.Background()
	s, id := buildTree(t)
	want := []string{"user:one", "assistant:r1", "user:three", "assistant:r3"}
	if got := contextTexts(t, s); !equalStrings(got, want) {
		t.Fatalf("context %v", got)
	}
	if got := s.Children(id["a1"]); len(got) != 3 || got[0] != id["u2"] || got[2] != id["u3"] {
		// u2, the leaf entry that moved to a1, u3
		t.Errorf("children of a1: %v", got)
	}
	tests := []struct {
		name   string
		target string
		want   []string
	}{
		{"back to the first branch", id["a2"], []string{"user:one", "assistant:r1", "user:two", "assistant:r2"}},
		{"to a user message", id["u2"], []string{"user:one", "assistant:r1", "user:two"}},
		{"before the first entry", "", nil},
		{"to the second branch", id["a3"], want},
	}
	for _, tc := range tests {
		if err := s.Navigate(ctx, tc.target); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.LeafID() != tc.target {
			t.Errorf("%s: leaf %q", tc.name, s.LeafID())
		}
		if got := contextTexts(t, s); !equalStrings(got, tc.want) {
			t.Errorf("%s: context %v", tc.name, got)
		}
		// The leaf entry has the target as parent, so pi lands on the same branch.
		lines := fileLines(t, s.Path())
		var leaf Entry
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &leaf); err != nil {
			t.Fatal(err)
		}
		e, err := decodeEntry([]byte(lines[len(lines)-1]))
		if err != nil || e.Type != TypeLeaf || e.ParentID != tc.target || e.TargetID != tc.target {
			t.Errorf("%s: last line %s", tc.name, lines[len(lines)-1])
		}
		if got := piView(t, s.Path()); !equalStrings(got, tc.want) {
			t.Errorf("%s: pi's view %v", tc.name, got)
		}
		// Reload restores the leaf.
		r := mustOpen(t, s.Path(), true)
		if r.LeafID() != tc.target {
			t.Errorf("%s: reloaded leaf %q", tc.name, r.LeafID())
		}
	}
	n := s.EntryCount()
	if err := s.Navigate(ctx, s.LeafID()); err != nil || s.EntryCount() != n {
		t.Errorf("navigating to the leaf wrote an entry (%v)", err)
	}
	if err := s.Navigate(ctx, "nope0000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown target: %v", err)
	}
	// Appending after a move parents onto the target.
	if err := s.Navigate(ctx, id["u1"]); err != nil {
		t.Fatal(err)
	}
	nid := must[string](t)(s.AppendMessage(ctx, assistant("alt")))
	if e := must[*Entry](t)(s.Entry(nid)); e.ParentID != id["u1"] {
		t.Errorf("append after navigate: parent %s", e.ParentID)
	}
	if got := piView(t, s.Path()); !equalStrings(got, []string{"user:one", "assistant:alt"}) {
		t.Errorf("pi view after append: %v", got)
	}
}

func TestLabelsAndNames(t *testing.T) {
	ctx := context.Background()
	s, id := buildTree(t)
	steps := []struct {
		target, label string
		want          map[string]string
	}{
		{id["u1"], "start", map[string]string{"u1": "start"}},
		{id["a2"], "first try", map[string]string{"u1": "start", "a2": "first try"}},
		{id["u1"], "begin", map[string]string{"u1": "begin", "a2": "first try"}},
		{id["a2"], "", map[string]string{"u1": "begin"}},
	}
	for _, st := range steps {
		if err := s.SetLabel(ctx, st.target, st.label); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Session{s, mustOpen(t, s.Path(), true)} {
			for name, eid := range id {
				if got := r.Label(eid); got != st.want[name] {
					t.Errorf("after %q: label of %s = %q, want %q", st.label, name, got, st.want[name])
				}
			}
		}
	}
	if err := s.SetLabel(ctx, "missing0", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("label on missing entry: %v", err)
	}
	if s.Name() != "" {
		t.Errorf("name %q", s.Name())
	}
	for _, n := range []string{"  Refactor auth  ", "second", ""} {
		if err := s.SetName(ctx, n); err != nil {
			t.Fatal(err)
		}
		if s.Name() != strings.TrimSpace(n) || mustOpen(t, s.Path(), true).Name() != strings.TrimSpace(n) {
			t.Errorf("name %q after setting %q", s.Name(), n)
		}
	}
	// Labels and names are not part of the context.
	if got := contextTexts(t, s); len(got) != 4 {
		t.Errorf("context %v", got)
	}
}

func TestTree(t *testing.T) {
	ctx := context.Background()
	s, id := buildTree(t)
	if err := s.SetLabel(ctx, id["u2"], "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendModelChange(ctx, "openai", "gpt-4o"); err != nil {
		t.Fatal(err)
	}
	roots := must[[]*TreeNode](t)(s.Tree(ctx))
	if len(roots) != 1 || roots[0].ID != id["u1"] || roots[0].Preview != "one" || roots[0].Role != "user" || !roots[0].OnBranch {
		t.Fatalf("roots %+v", roots)
	}
	a1 := roots[0].Children[0]
	if a1.ID != id["a1"] || len(a1.Children) != 2 {
		t.Fatalf("a1 children: %d (leaf entries must not show)", len(a1.Children))
	}
	u2, u3 := a1.Children[0], a1.Children[1]
	if u2.Label != "old" || u2.OnBranch || !u3.OnBranch || u3.Preview != "three" || u3.ParentID != id["a1"] {
		t.Errorf("u2 %+v u3 %+v", u2, u3)
	}
	var last *TreeNode
	for n := u3; n != nil; {
		last = n
		if len(n.Children) == 0 {
			break
		}
		n = n.Children[len(n.Children)-1]
	}
	if last.Type != TypeModelChange || last.Preview != "openai/gpt-4o" {
		t.Errorf("last node %+v", last)
	}
	b, err := json.Marshal(roots)
	if err != nil || !strings.Contains(string(b), `"onBranch":true`) || !strings.Contains(string(b), `"parentId"`) {
		t.Errorf("json %s %v", b, err)
	}
	long := strings.Repeat("word ", 100)
	lid := must[string](t)(s.AppendMessage(ctx, user(long)))
	roots = must[[]*TreeNode](t)(s.Tree(ctx))
	var find func([]*TreeNode) *TreeNode
	find = func(ns []*TreeNode) *TreeNode {
		for _, n := range ns {
			if n.ID == lid {
				return n
			}
			if f := find(n.Children); f != nil {
				return f
			}
		}
		return nil
	}
	if n := find(roots); n == nil || len([]rune(n.Preview)) != previewLen || !strings.HasSuffix(n.Preview, "…") {
		t.Errorf("long preview %+v", n)
	}
}

func TestBranch(t *testing.T) {
	s, id := buildTree(t)
	b := must[[]*Entry](t)(s.Branch(""))
	var got []string
	for _, e := range b {
		got = append(got, e.ID)
	}
	if !equalStrings(got, []string{id["u1"], id["a1"], id["u3"], id["a3"]}) {
		t.Errorf("branch %v", got)
	}
	b = must[[]*Entry](t)(s.Branch(id["u2"]))
	if len(b) != 3 || b[2].ID != id["u2"] {
		t.Errorf("branch from u2: %d", len(b))
	}
	if _, err := s.Branch("zzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := s.Entry("zzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown entry: %v", err)
	}
}

func TestForkAndClone(t *testing.T) {
	ctx := context.Background()
	s, id := buildTree(t)
	// A label entry in the middle of the branch, with entries after it.
	if err := s.SetLabel(ctx, id["u1"], "root"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLabel(ctx, id["u2"], "other branch"); err != nil {
		t.Fatal(err)
	}
	id["u4"] = must[string](t)(s.AppendMessage(ctx, user("four")))
	id["a4"] = must[string](t)(s.AppendMessage(ctx, assistant("r4")))
	full := []string{"user:one", "assistant:r1", "user:three", "assistant:r3", "user:four", "assistant:r4"}
	tests := []struct {
		name    string
		fork    func(root string) (*Session, error)
		want    []string
		labels  map[string]string
		entries int
		err     bool
	}{
		{"before a user message", func(root string) (*Session, error) { return Fork(ctx, s, root, id["u4"], false) },
			full[:4], map[string]string{"u1": "root"}, 4 + 1, false},
		{"at an entry", func(root string) (*Session, error) { return Fork(ctx, s, root, id["u4"], true) },
			full[:5], map[string]string{"u1": "root"}, 5 + 1, false},
		{"at the other branch", func(root string) (*Session, error) { return Fork(ctx, s, root, id["u2"], true) },
			[]string{"user:one", "assistant:r1", "user:two"}, map[string]string{"u1": "root", "u2": "other branch"}, 3 + 2, false},
		{"before the first message", func(root string) (*Session, error) { return Fork(ctx, s, root, id["u1"], false) },
			nil, map[string]string{}, 0, false},
		{"clone", func(root string) (*Session, error) { return Clone(ctx, s, root) },
			full, map[string]string{"u1": "root"}, 6 + 1, false},
		{"before a non-user entry", func(root string) (*Session, error) { return Fork(ctx, s, root, id["a1"], false) }, nil, nil, 0, true},
		{"unknown entry", func(root string) (*Session, error) { return Fork(ctx, s, root, "nope", true) }, nil, nil, 0, true},
	}
	for _, tc := range tests {
		root := t.TempDir()
		f, err := tc.fork(root)
		if tc.err {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
				f.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f.Header().ParentSession != s.Path() || f.ID() == s.ID() || !strings.HasPrefix(f.Path(), DirFor(root, s.Cwd())) {
			t.Errorf("%s: header %+v path %s", tc.name, f.Header(), f.Path())
		}
		for _, sess := range []*Session{f, mustOpen(t, f.Path(), true)} {
			if got := contextTexts(t, sess); !equalStrings(got, tc.want) {
				t.Errorf("%s: context %v", tc.name, got)
			}
			if sess.EntryCount() != tc.entries || len(sess.Warnings()) != 0 {
				t.Errorf("%s: %d entries, warnings %v", tc.name, sess.EntryCount(), sess.Warnings())
			}
			for name, label := range tc.labels {
				if sess.Label(id[name]) != label {
					t.Errorf("%s: label of %s = %q", tc.name, name, sess.Label(id[name]))
				}
			}
		}
		if tc.want != nil {
			if got := piView(t, f.Path()); !equalStrings(got, tc.want) {
				t.Errorf("%s: pi's view %v", tc.name, got)
			}
		}
		// The fork is writable and locked.
		if _, err := f.AppendMessage(ctx, user("more")); err != nil {
			t.Errorf("%s: append to fork: %v", tc.name, err)
		}
		f.Close()
	}
	u4 := must[*Entry](t)(s.Entry(id["u4"]))
	if u4.UserText() != "four" {
		t.Errorf("UserText %q", u4.UserText())
	}
	// Hidden forks go to the subagents directory.
	h, err := CloneWith(ctx, s, t.TempDir(), ForkOptions{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if !strings.Contains(h.Path(), "/"+SubagentDir+"/") {
		t.Errorf("hidden clone at %s", h.Path())
	}
}

func TestNodePreviews(t *testing.T) {
	long := strings.Repeat(`ab\n`, 2000)
	tests := []struct {
		line          string
		k             kind
		role, preview string
	}{
		{msgLine("m1", "", "user", "hello\tworld"), kMessage, "user", "hello world"},
		{`{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"user","content":"plain \"string\" \u00e9 \ud83d\ude00"}}`, kMessage, "user", `plain "string" é 😀`},
		{`{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"toolCall","id":"c","name":"read","arguments":{}},{"type":"toolCall","id":"d","name":"bash","arguments":{}}]}}`, kMessage, "assistant", "→ read, bash"},
		{`{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`, kMessage, "assistant", "a b"},
		{`{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"bashExecution","command":"ls -la","output":"x"}}`, kMessage, "bashExecution", "$ ls -la"},
		{`{"type":"message","id":"m","parentId":null,"timestamp":"t","message":{"role":"toolResult","content":[{"type":"text","text":"` + long + `"}]}}`, kMessage, "toolResult", strings.TrimSpace(strings.Repeat("ab ", previewLen/3)) + "…"},
		{entryLine("custom_message", "c", "", `"customType":"n","content":"note text","display":true`), kCustomMessage, "", "note text"},
		{entryLine("compaction", "c", "", `"summary":"## Goal\nx","firstKeptEntryId":"a","tokensBefore":1`), kCompaction, "", "## Goal x"},
		{entryLine("model_change", "c", "", `"provider":"p","modelId":"m"`), kModelChange, "", "p/m"},
		{entryLine("label", "c", "", `"targetId":"t1","label":"L"`), kLabel, "", "t1: L"},
		{entryLine("session_info", "c", "", `"name":"N"`), kSessionInfo, "", "N"},
	}
	for _, tc := range tests {
		ts, role, preview, err := nodeFields(tc.k, []byte(tc.line))
		if err != nil || role != tc.role || preview != tc.preview || ts == "" {
			t.Errorf("%.60s…: %q %q %q %v, want %q %q", tc.line, ts, role, preview, err, tc.role, tc.preview)
		}
	}
}
