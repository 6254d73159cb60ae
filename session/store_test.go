package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestEntryRoundTrip(t *testing.T) {
	ctx := context.Background()
	exit := 2
	tests := []struct {
		name   string
		append func(s *Session) (string, error)
		check  func(t *testing.T, e *Entry)
	}{
		{"user message", func(s *Session) (string, error) { return s.AppendMessage(ctx, user("hi <there> & ü")) },
			func(t *testing.T, e *Entry) {
				if e.Type != TypeMessage || e.Message.Role != llm.RoleUser || e.Message.Text() != "hi <there> & ü" {
					t.Errorf("got %+v", e.Message)
				}
			}},
		{"assistant with thinking and tool call", func(s *Session) (string, error) {
			m := assistant("done")
			m.Content = append([]llm.ContentBlock{{Type: llm.BlockThinking, Thinking: "hmm", ThinkingSignature: "sig"}}, m.Content...)
			m.Content = append(m.Content, llm.ContentBlock{Type: llm.BlockToolCall, ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)})
			m.Usage = llm.Usage{Input: 10, Output: 5, TotalTokens: 15}
			m.StopReason = llm.StopToolUse
			return s.AppendMessage(ctx, m)
		}, func(t *testing.T, e *Entry) {
			m := e.Message
			if m.Role != llm.RoleAssistant || len(m.Content) != 3 || m.Content[0].Thinking != "hmm" || m.Content[2].Name != "read" ||
				string(m.Content[2].Arguments) != `{"path":"a.go"}` || m.Usage.TotalTokens != 15 || m.StopReason != llm.StopToolUse || m.Provider != "fake" {
				t.Errorf("got %+v", m)
			}
		}},
		{"tool result with image", func(s *Session) (string, error) {
			return s.AppendMessage(ctx, llm.Message{Role: llm.RoleToolResult, ToolCallID: "call_1", ToolName: "read", IsError: true,
				Content: []llm.ContentBlock{llm.TextBlock("out"), {Type: llm.BlockImage, Data: "aGk=", MimeType: "image/png"}}, Details: json.RawMessage(`{"lines":3}`)})
		}, func(t *testing.T, e *Entry) {
			m := e.Message
			if m.Role != llm.RoleToolResult || m.ToolCallID != "call_1" || !m.IsError || m.Content[1].MimeType != "image/png" || string(m.Details) != `{"lines":3}` {
				t.Errorf("got %+v", m)
			}
			if m.Timestamp == 0 {
				t.Error("zero message timestamp was not set")
			}
		}},
		{"bash execution", func(s *Session) (string, error) {
			return s.AppendMessage(ctx, llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "a\nb", ExitCode: &exit, Truncated: true, FullOutputPath: "/tmp/x"})
		}, func(t *testing.T, e *Entry) {
			m := e.Message
			if m.Command != "ls" || m.Output != "a\nb" || m.ExitCode == nil || *m.ExitCode != 2 || !m.Truncated || m.FullOutputPath != "/tmp/x" {
				t.Errorf("got %+v", m)
			}
		}},
		{"model change", func(s *Session) (string, error) { return s.AppendModelChange(ctx, "openai", "gpt-4o") },
			func(t *testing.T, e *Entry) {
				if e.Type != TypeModelChange || e.Provider != "openai" || e.ModelID != "gpt-4o" {
					t.Errorf("got %+v", e)
				}
			}},
		{"thinking level", func(s *Session) (string, error) { return s.AppendThinkingLevel(ctx, "high") },
			func(t *testing.T, e *Entry) {
				if e.Type != TypeThinkingLevel || e.ThinkingLevel != "high" {
					t.Errorf("got %+v", e)
				}
			}},
		{"compaction", func(s *Session) (string, error) {
			return s.AppendCompaction(ctx, "sum", "abcd1234", 5000, map[string]any{"readFiles": []string{"a"}}, true)
		}, func(t *testing.T, e *Entry) {
			if e.Summary != "sum" || e.FirstKeptEntryID != "abcd1234" || e.TokensBefore != 5000 || !e.FromHook || string(e.Details) != `{"readFiles":["a"]}` {
				t.Errorf("got %+v", e)
			}
		}},
		{"branch summary", func(s *Session) (string, error) { return s.AppendBranchSummary(ctx, "ffff0000", "left", nil, false) },
			func(t *testing.T, e *Entry) {
				if e.FromID != "ffff0000" || e.Summary != "left" || e.Details != nil || e.FromHook || strings.Contains(string(e.Raw), "fromHook") {
					t.Errorf("got %+v raw %s", e, e.Raw)
				}
			}},
		{"custom", func(s *Session) (string, error) {
			return s.AppendCustom(ctx, "pi-lsp/mode", map[string]string{"mode": "plan"})
		},
			func(t *testing.T, e *Entry) {
				if e.CustomType != "pi-lsp/mode" || string(e.Data) != `{"mode":"plan"}` {
					t.Errorf("got %+v", e)
				}
			}},
		{"custom message", func(s *Session) (string, error) {
			return s.AppendCustomMessage(ctx, "note", []llm.ContentBlock{llm.TextBlock("injected")}, true, json.RawMessage(`[1]`))
		}, func(t *testing.T, e *Entry) {
			if e.CustomType != "note" || !e.Display || len(e.Content) != 1 || e.Content[0].Text != "injected" || string(e.Details) != `[1]` {
				t.Errorf("got %+v", e)
			}
		}},
	}
	s := mustCreate(t)
	ids := map[string]string{}
	for _, tc := range tests {
		id, err := tc.append(s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) {
			t.Errorf("%s: id %q is not 8 hex chars", tc.name, id)
		}
		ids[tc.name] = id
	}
	for _, reopen := range []bool{false, true} {
		cur := s
		if reopen {
			path := s.Path()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			cur = mustOpen(t, path, false)
		}
		var prev string
		for _, tc := range tests {
			e, err := cur.Entry(ids[tc.name])
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if e.ParentID != prev {
				t.Errorf("%s: parent %q, want %q", tc.name, e.ParentID, prev)
			}
			if _, err := decodeEntry(e.Raw); err != nil || !json.Valid(e.Raw) {
				t.Errorf("%s: raw line does not decode: %v", tc.name, err)
			}
			tc.check(t, e)
			prev = e.ID
		}
		if cur.LeafID() != prev || cur.EntryCount() != len(tests) {
			t.Errorf("reopen=%v: leaf %s count %d", reopen, cur.LeafID(), cur.EntryCount())
		}
	}
}

func TestFileLayout(t *testing.T) {
	root := t.TempDir()
	s, err := Create(context.Background(), root, "/home/u/my:proj", CreateOptions{ParentSession: "/x/y.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := filepath.Join(root, "--home-u-my-proj--")
	if filepath.Dir(s.Path()) != dir {
		t.Errorf("dir %s, want %s", filepath.Dir(s.Path()), dir)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$`).MatchString(filepath.Base(s.Path())) {
		t.Errorf("file name %s", filepath.Base(s.Path()))
	}
	if !strings.Contains(filepath.Base(s.Path()), s.ID()) {
		t.Errorf("file name %s lacks id %s", s.Path(), s.ID())
	}
	for path, want := range map[string]os.FileMode{s.Path(): 0o600, dir: 0o700} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	lines := fileLines(t, s.Path())
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h["type"] != "session" || h["version"] != 3.0 || h["cwd"] != "/home/u/my:proj" || h["parentSession"] != "/x/y.jsonl" || h["id"] != s.ID() {
		t.Errorf("header %v", h)
	}
	if !strings.HasPrefix(lines[0], `{"type":"session","version":3,`) {
		t.Errorf("header field order: %s", lines[0])
	}
}

func TestDirFor(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/u/proj", "--home-u-proj--"},
		{`C:\Users\me\proj`, "--C--Users-me-proj--"},
		{`\\srv\share`, "---srv-share--"},
		{"rel/dir", "--rel-dir--"},
		{"/", "----"},
	}
	for _, tc := range tests {
		if got := filepath.Base(DirFor("/r", tc.cwd)); got != tc.want {
			t.Errorf("DirFor(%q) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
	t.Setenv("PI_LSP_SESSIONS", "/custom/root")
	if DefaultRoot() != "/custom/root" {
		t.Errorf("DefaultRoot ignores PI_LSP_SESSIONS: %s", DefaultRoot())
	}
	t.Setenv("PI_LSP_SESSIONS", "")
	t.Setenv("HOME", "/h")
	if DefaultRoot() != "/h/.pi/agent/sessions" {
		t.Errorf("DefaultRoot = %s", DefaultRoot())
	}
}

func TestUnknownEntriesSurvive(t *testing.T) {
	lines := []string{
		testHeader,
		`{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2025-01-02T03:04:06.000Z","message":{"role":"user","content":"hello","timestamp":1},"extra":{"keep":[1,2]}}`,
		`{"type":"future_thing","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2025-01-02T03:04:07.000Z","payload":"x"}`,
		`{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2025-01-02T03:04:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2,"newField":true}}`,
	}
	s := mustOpen(t, writeLines(t, t.TempDir(), lines...), false)
	for i, id := range []string{"aaaa0001", "aaaa0002", "aaaa0003"} {
		e, err := s.Entry(id)
		if err != nil {
			t.Fatal(err)
		}
		if string(e.Raw) != lines[i+1] {
			t.Errorf("raw of %s changed:\n%s\n%s", id, e.Raw, lines[i+1])
		}
	}
	c := must[Context](t)(s.BuildContext(context.Background()))
	if got := texts(c.Messages); !equalStrings(got, []string{"user:hello", "assistant:yo"}) {
		t.Errorf("context %v", got)
	}
	for _, fork := range []func() (*Session, error){
		func() (*Session, error) { return Clone(context.Background(), s, t.TempDir()) },
		func() (*Session, error) { return Fork(context.Background(), s, t.TempDir(), "aaaa0003", true) },
	} {
		f, err := fork()
		if err != nil {
			t.Fatal(err)
		}
		got := fileLines(t, f.Path())[1:]
		if !equalStrings(got, lines[1:]) {
			t.Errorf("fork did not copy raw lines:\n%s", strings.Join(got, "\n"))
		}
		f.Close()
	}
}

func TestLock(t *testing.T) {
	s := mustCreate(t)
	_, err := Open(context.Background(), s.Path(), OpenOptions{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || le.Path != s.Path() {
		t.Fatalf("second writer: %v", err)
	}
	if !strings.Contains(err.Error(), "locked by pid") {
		t.Errorf("message %q", err)
	}
	ro := mustOpen(t, s.Path(), true)
	if _, err := ro.AppendMessage(context.Background(), user("x")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only append: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(context.Background(), user("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	s2 := mustOpen(t, s.Path(), false)
	if _, err := s2.AppendMessage(context.Background(), user("again")); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustCreate(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if _, err := s.AppendCustom(ctx, "w", []int{w, i}); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := s.BuildContext(ctx); err != nil {
					t.Error(err)
				}
				_, _ = s.Tree(ctx)
				_, _ = s.LatestCustom("w")
			}
		}()
	}
	wg.Wait()
	if s.EntryCount() != 80 || s.BranchLen() != 80 {
		t.Fatalf("count %d branch %d", s.EntryCount(), s.BranchLen())
	}
	r := mustOpen(t, s.Path(), true)
	if r.EntryCount() != 80 || len(r.Warnings()) != 0 {
		t.Errorf("reload: %d entries, warnings %v", r.EntryCount(), r.Warnings())
	}
	ids := map[string]bool{}
	for _, c := range r.Children("") {
		ids[c] = true
	}
	if len(ids) != 1 {
		t.Errorf("roots %v", ids)
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Create(ctx, t.TempDir(), "/x", CreateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Create: %v", err)
	}
	s := mustCreate(t)
	if _, err := s.AppendMessage(ctx, user("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Append: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]string{
		"empty":     "",
		"no header": `{"type":"message","id":"a","parentId":null}` + "\n",
		"garbage":   "not json\n",
		"no id":     `{"type":"session","version":3}` + "\n",
	}
	for name, content := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(context.Background(), path, OpenOptions{}); err == nil {
			t.Errorf("%s: opened", name)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s: file changed", name)
		}
		// The lock must have been released.
		if _, err := Open(context.Background(), path, OpenOptions{}); errors.As(err, new(*LockedError)) {
			t.Errorf("%s: lock kept after a failed open", name)
		}
	}
	for _, ro := range []bool{true, false} {
		missing := filepath.Join(dir, "missing.jsonl")
		if _, err := Open(context.Background(), missing, OpenOptions{ReadOnly: ro}); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("missing: %v", err)
		}
		if _, err := os.Stat(missing + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a lock file was left for a missing session")
		}
	}
	if _, err := Open(context.Background(), dir, OpenOptions{}); err == nil {
		t.Error("opened a directory")
	}
}

func TestHeaderAccessors(t *testing.T) {
	s := mustOpen(t, writeLines(t, t.TempDir(), testHeader), true)
	want := Header{Version: 3, ID: "11111111-2222-3333-4444-555555555555", Timestamp: "2025-01-02T03:04:05.678Z", Cwd: "/work/proj"}
	if !reflect.DeepEqual(s.Header(), want) || s.Cwd() != "/work/proj" || s.ID() != want.ID || s.LeafID() != "" || s.EntryCount() != 0 {
		t.Errorf("header %+v", s.Header())
	}
	c := must[Context](t)(s.BuildContext(context.Background()))
	if len(c.Messages) != 0 || c.ThinkingLevel != "off" || c.Provider != "" {
		t.Errorf("empty context %+v", c)
	}
}

// appendRaw appends bytes to a file as another process would.
func appendRaw(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func TestExternalAppends(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	u1 := must[string](t)(s.AppendMessage(ctx, user("ours")))
	viewer := mustOpen(t, s.Path(), true)

	// Another writer (pi ignores our lock) appends an entry, then half of one.
	ext := msgLine("e0000001", u1, "assistant", "theirs")
	half := msgLine("e0000002", "e0000001", "user", "half")
	appendRaw(t, s.Path(), ext+"\n"+half[:20])

	// A viewer's Refresh takes complete lines only.
	if err := viewer.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if viewer.EntryCount() != 2 || viewer.LeafID() != "e0000001" || len(viewer.Warnings()) != 0 {
		t.Fatalf("viewer: %d entries, leaf %s, %v", viewer.EntryCount(), viewer.LeafID(), viewer.Warnings())
	}
	appendRaw(t, s.Path(), half[20:]+"\n")
	if err := viewer.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if viewer.EntryCount() != 3 || viewer.LeafID() != "e0000002" {
		t.Fatalf("viewer after the line completed: %d entries, leaf %s", viewer.EntryCount(), viewer.LeafID())
	}
	if got := contextTexts(t, viewer); !equalStrings(got, []string{"user:ours", "assistant:theirs", "user:half"}) {
		t.Errorf("viewer context %v", got)
	}

	// The writer picks the foreign entries up before its next append.
	id := must[string](t)(s.AppendMessage(ctx, assistant("ours again")))
	if e := must[*Entry](t)(s.Entry(id)); e.ParentID != "e0000002" {
		t.Errorf("appended under %s", e.ParentID)
	}
	if got := s.Children("e0000001"); len(got) != 1 || got[0] != "e0000002" {
		t.Errorf("children %v", got)
	}
	r := mustOpen(t, s.Path(), true)
	if r.EntryCount() != 4 || len(r.Warnings()) != 0 {
		t.Errorf("reload %d %v", r.EntryCount(), r.Warnings())
	}
}
