package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// line builders for hand-written sessions.
func msgLine(id, parent, role, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	extra := ""
	if role == "assistant" {
		extra = `,"api":"openai-completions","provider":"prov-` + id + `","model":"model-` + id + `","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":%q,"content":[{"type":"text","text":%q}]%s,"timestamp":1}}`, id, p, role, text, extra)
}

func entryLine(typ, id, parent, fields string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":"2025-01-01T00:00:01.500Z"%s}`, typ, id, p, fields)
}

func TestBuildContext(t *testing.T) {
	tests := []struct {
		name              string
		lines             []string
		want              []string
		provider, modelID string
		thinking          string
		entryIDs          []string
	}{
		{
			name: "plain, with settings folded",
			lines: []string{
				msgLine("u1", "", "user", "hi"),
				entryLine("thinking_level_change", "t1", "u1", `"thinkingLevel":"high"`),
				entryLine("model_change", "m1", "t1", `"provider":"openai","modelId":"gpt-4o"`),
				msgLine("a1", "m1", "assistant", "hello"),
				entryLine("model_change", "m2", "a1", `"provider":"anthropic","modelId":"claude"`),
				entryLine("custom", "c1", "m2", `"customType":"state","data":{"x":1}`),
				entryLine("custom_message", "cm", "c1", `"customType":"note","content":"injected","display":false,"details":{"d":1}`),
				entryLine("thinking_level_change", "t2", "cm", `"thinkingLevel":"low"`),
			},
			want:     []string{"user:hi", "assistant:hello", "custom:injected"},
			provider: "anthropic", modelID: "claude", thinking: "low",
			entryIDs: []string{"u1", "a1", "cm"},
		},
		{
			name: "assistant after a model change sets the model",
			lines: []string{
				entryLine("model_change", "m1", "", `"provider":"openai","modelId":"gpt-4o"`),
				msgLine("u1", "m1", "user", "hi"),
				msgLine("a1", "u1", "assistant", "hello"),
			},
			want: []string{"user:hi", "assistant:hello"}, provider: "prov-a1", modelID: "model-a1", thinking: "off",
			entryIDs: []string{"u1", "a1"},
		},
		{
			name: "branch summaries (empty ones dropped)",
			lines: []string{
				msgLine("u1", "", "user", "hi"),
				msgLine("a1", "u1", "assistant", "hello"),
				msgLine("u2", "a1", "user", "abandoned"),
				entryLine("branch_summary", "b1", "a1", `"fromId":"u2","summary":"tried X"`),
				entryLine("branch_summary", "b2", "b1", `"fromId":"u2","summary":""`),
				msgLine("u3", "b2", "user", "again"),
			},
			want: []string{"user:hi", "assistant:hello", "branchSummary:tried X", "user:again"}, provider: "prov-a1", modelID: "model-a1", thinking: "off",
			entryIDs: []string{"u1", "a1", "b1", "u3"},
		},
		{
			name: "compaction keeps from firstKeptEntryId",
			lines: []string{
				msgLine("u1", "", "user", "one"),
				msgLine("a1", "u1", "assistant", "r1"),
				msgLine("u2", "a1", "user", "two"),
				msgLine("a2", "u2", "assistant", "r2"),
				entryLine("compaction", "c1", "a2", `"summary":"S1","firstKeptEntryId":"u2","tokensBefore":100`),
				msgLine("u3", "c1", "user", "three"),
			},
			want: []string{"compactionSummary:S1", "user:two", "assistant:r2", "user:three"}, provider: "prov-a2", modelID: "model-a2", thinking: "off",
			entryIDs: []string{"c1", "u2", "a2", "u3"},
		},
		{
			name: "only the last compaction counts",
			lines: []string{
				msgLine("u1", "", "user", "one"),
				msgLine("a1", "u1", "assistant", "r1"),
				entryLine("compaction", "c1", "a1", `"summary":"S1","firstKeptEntryId":"a1","tokensBefore":100`),
				msgLine("u2", "c1", "user", "two"),
				entryLine("custom_message", "cm", "u2", `"customType":"n","content":[{"type":"text","text":"ctx"}],"display":true`),
				msgLine("a2", "cm", "assistant", "r2"),
				entryLine("compaction", "c2", "a2", `"summary":"S2","firstKeptEntryId":"u2","tokensBefore":200`),
				entryLine("branch_summary", "b1", "c2", `"fromId":"x","summary":"bs"`),
				msgLine("u3", "b1", "user", "three"),
			},
			want: []string{"compactionSummary:S2", "user:two", "custom:ctx", "assistant:r2", "branchSummary:bs", "user:three"}, provider: "prov-a2", modelID: "model-a2", thinking: "off",
			entryIDs: []string{"c2", "u2", "cm", "a2", "b1", "u3"},
		},
		{
			name: "firstKeptEntryId not on the branch",
			lines: []string{
				msgLine("u1", "", "user", "one"),
				entryLine("compaction", "c1", "u1", `"summary":"S","firstKeptEntryId":"gone","tokensBefore":1`),
				msgLine("u2", "c1", "user", "two"),
			},
			want: []string{"compactionSummary:S", "user:two"}, thinking: "off", entryIDs: []string{"c1", "u2"},
		},
		{
			name: "leaf entry at the first branch",
			lines: []string{
				msgLine("u1", "", "user", "one"),
				msgLine("a1", "u1", "assistant", "r1"),
				msgLine("a2", "u1", "assistant", "other"),
				entryLine("leaf", "l1", "a1", `"targetId":"a1"`),
			},
			want: []string{"user:one", "assistant:r1"}, provider: "prov-a1", modelID: "model-a1", thinking: "off", entryIDs: []string{"u1", "a1"},
		},
		{
			name: "leaf entry before the first entry",
			lines: []string{
				msgLine("u1", "", "user", "one"),
				entryLine("leaf", "l1", "", `"targetId":null`),
			},
			thinking: "off",
		},
		{
			name: "bash execution and unknown roles pass through",
			lines: []string{
				`{"type":"message","id":"b1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}`,
				`{"type":"message","id":"x1","parentId":"b1","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"futureRole","content":"?","timestamp":1}}`,
				`{"type":"mystery","id":"y1","parentId":"x1","timestamp":"2025-01-01T00:00:00.000Z"}`,
			},
			want: []string{"bashExecution:ls", "futureRole:?"}, thinking: "off", entryIDs: []string{"b1", "x1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, writeLines(t, t.TempDir(), append([]string{testHeader}, tc.lines...)...), true)
			if w := s.Warnings(); len(w) > 0 {
				t.Fatalf("warnings %v", w)
			}
			c, err := s.BuildContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(c.Messages); !equalStrings(got, tc.want) {
				t.Errorf("messages %q, want %q", got, tc.want)
			}
			if !equalStrings(c.EntryIDs, tc.entryIDs) {
				t.Errorf("entry ids %v, want %v", c.EntryIDs, tc.entryIDs)
			}
			if c.Provider != tc.provider || c.ModelID != tc.modelID || c.ThinkingLevel != tc.thinking {
				t.Errorf("settings %s/%s %s", c.Provider, c.ModelID, c.ThinkingLevel)
			}
			info, err := s.ContextInfo(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Messages != len(c.Messages) || info.Provider != c.Provider || info.ModelID != c.ModelID || info.ThinkingLevel != c.ThinkingLevel {
				t.Errorf("ContextInfo %+v disagrees with BuildContext (%d messages)", info, len(c.Messages))
			}
		})
	}
}

func TestContextMessageShapes(t *testing.T) {
	s := mustOpen(t, writeLines(t, t.TempDir(), testHeader,
		entryLine("custom_message", "cm", "", `"customType":"note","content":"hi","display":true,"details":{"k":"v"}`),
		entryLine("compaction", "c1", "cm", `"summary":"S","firstKeptEntryId":"cm","tokensBefore":42`),
		entryLine("branch_summary", "b1", "c1", `"fromId":"zz","summary":"B"`),
	), true)
	c := must[Context](t)(s.BuildContext(context.Background()))
	b, err := json.Marshal(c.Messages)
	if err != nil {
		t.Fatal(err)
	}
	// Shapes as pi's createCompactionSummaryMessage / createCustomMessage /
	// createBranchSummaryMessage make them; timestamps from the entry's ISO time.
	want := `[{"role":"compactionSummary","summary":"S","tokensBefore":42,"timestamp":1735689601500},` +
		`{"role":"custom","customType":"note","content":[{"type":"text","text":"hi"}],"display":true,"details":{"k":"v"},"timestamp":1735689601500},` +
		`{"role":"branchSummary","summary":"B","fromId":"zz","timestamp":1735689601500}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestLatestCustom(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	if _, ok := s.LatestCustom("pi-lsp/mode"); ok {
		t.Error("found state in an empty session")
	}
	first := must[string](t)(s.AppendCustom(ctx, "pi-lsp/mode", map[string]string{"mode": "plan"}))
	must[string](t)(s.AppendCustom(ctx, "other", 1))
	must[string](t)(s.AppendMessage(ctx, user("x")))
	must[string](t)(s.AppendCustom(ctx, "pi-lsp/mode", map[string]string{"mode": "build"}))
	if d, ok := s.LatestCustom("other"); !ok || string(d) != "1" {
		t.Errorf("other: %s", d)
	}
	tests := []struct {
		leaf, want string
	}{
		{"", `{"mode":"build"}`},
		{first, `{"mode":"plan"}`},
	}
	for _, tc := range tests {
		if tc.leaf != "" {
			if err := s.Navigate(ctx, tc.leaf); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range []*Session{s, mustOpen(t, s.Path(), true)} {
			got, ok := r.LatestCustom("pi-lsp/mode")
			if !ok || string(got) != tc.want {
				t.Errorf("leaf %q: %s %v", tc.leaf, got, ok)
			}
		}
	}
	if _, ok := s.LatestCustom("other"); ok {
		t.Error("found an entry that is not on the branch")
	}
}

func TestBuildContextLargeBranch(t *testing.T) {
	ctx := context.Background()
	s := mustCreate(t)
	var want []string
	for i := range 300 {
		m := user(fmt.Sprintf("msg %d %s", i, strings.Repeat("x", i)))
		if i%2 == 1 {
			m = assistant(fmt.Sprintf("reply %d", i))
		}
		must[string](t)(s.AppendMessage(ctx, m))
		want = append(want, string(m.Role)+":"+m.Text())
	}
	r := mustOpen(t, s.Path(), true)
	if got := contextTexts(t, r); !equalStrings(got, want) {
		t.Errorf("context differs after reload (%d vs %d)", len(got), len(want))
	}
}

func TestContextEntries(t *testing.T) {
	ids := func(es []*Entry) string {
		var out []string
		for _, e := range es {
			s := e.ID
			if e.Message != nil {
				s += ":" + e.Message.Text()
			}
			out = append(out, s)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"no compaction: the whole branch", []string{
			msgLine("u1", "", "user", "hi"),
			entryLine("model_change", "m1", "u1", `"provider":"openai","modelId":"gpt-4o"`),
			msgLine("a1", "m1", "assistant", "hello"),
		}, "u1:hi,m1,a1:hello"},
		{"from the latest compaction's first kept entry", []string{
			msgLine("u1", "", "user", "old"),
			msgLine("a1", "u1", "assistant", "older"),
			msgLine("u2", "a1", "user", "kept"),
			entryLine("compaction", "c1", "u2", `"summary":"s1","firstKeptEntryId":"u1","tokensBefore":5`),
			msgLine("a2", "c1", "assistant", "after"),
			entryLine("compaction", "c2", "a2", `"summary":"s2","firstKeptEntryId":"u2","tokensBefore":9`),
			msgLine("u3", "c2", "user", "new"),
		}, "u2:kept,c1,a2:after,c2,u3:new"},
		{"first kept entry off the branch: from the compaction", []string{
			msgLine("u1", "", "user", "old"),
			entryLine("compaction", "c1", "u1", `"summary":"s1","firstKeptEntryId":"gone","tokensBefore":5`),
			msgLine("u2", "c1", "user", "new"),
		}, "c1,u2:new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, writeLines(t, t.TempDir(), append([]string{testHeader}, tc.lines...)...), true)
			// Twice: the second read takes the messages from the cache.
			for range 2 {
				es, err := s.ContextEntries(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if got := ids(es); got != tc.want {
					t.Fatalf("entries %s, want %s", got, tc.want)
				}
			}
		})
	}
}
