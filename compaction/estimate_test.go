package compaction

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func TestEncodingFor(t *testing.T) {
	tests := map[string]string{
		"gpt-4o": EncodingO200k, "openai/gpt-4.1-mini": EncodingO200k, "GPT-5": EncodingO200k,
		"o3-mini": EncodingO200k, "openrouter/openai/o4-mini": EncodingO200k, "gpt-oss-120b": EncodingO200k,
		"gpt-4-turbo": EncodingCl100k, "gpt-3.5-turbo": EncodingCl100k,
		"claude-sonnet-4-5": EncodingCl100k, "ollama/llama3.1:8b": EncodingCl100k, "qwen2.5-coder:32b": EncodingCl100k,
		"deepseek-chat":  EncodingCl100k,
		"my-local-model": EncodingChars, "": EncodingChars, "fake/m": EncodingChars,
	}
	for family, want := range tests {
		if got := EncodingFor(family); got != want {
			t.Errorf("%q: %s, want %s", family, got, want)
		}
		if got := NewEstimator(family).Encoding(); got != want {
			t.Errorf("%q estimator: %s, want %s", family, got, want)
		}
	}
	var nilEst *Estimator
	if nilEst.Encoding() != EncodingChars || nilEst.Text("abcdefgh") != 2 {
		t.Error("nil estimator is not chars/4")
	}
}

func TestEstimatorBPEVersusChars(t *testing.T) {
	chars := NewEstimator("unknown")
	o200k := NewEstimator("gpt-4o")
	cl100k := NewEstimator("gpt-4")
	tests := []struct {
		text                   string
		chars, o200ks, cl100ks int
	}{
		{"hello world", 3, 2, 2},
		{"The quick brown fox jumps over the lazy dog.", 11, 10, 10},
		{"func main() {\n\tfmt.Println(\"hi\")\n}\n", 9, 10, 10},
		{"你好世界", 1, 2, 5}, // chars/4 counts UTF-16 units, as JavaScript
		{"😀😀", 1, 2, 4},   // two surrogate pairs = 4 units
		{"", 0, 0, 0},
	}
	for _, tt := range tests {
		if got := chars.Text(tt.text); got != tt.chars {
			t.Errorf("chars/4 %q: %d, want %d", tt.text, got, tt.chars)
		}
		if got := o200k.Text(tt.text); got != tt.o200ks {
			t.Errorf("o200k %q: %d, want %d", tt.text, got, tt.o200ks)
		}
		if got := cl100k.Text(tt.text); got != tt.cl100ks {
			t.Errorf("cl100k %q: %d, want %d", tt.text, got, tt.cl100ks)
		}
	}
}

func TestEstimatorMessage(t *testing.T) {
	img := llm.ContentBlock{Type: llm.BlockImage, Data: "AAAA", MimeType: "image/png"}
	exit := 1
	tests := []struct {
		name      string
		m         llm.Message
		chars, bp int
	}{
		{"user text", llm.UserText("abcdefgh", 0), 2, 1},
		{"user image counts 4800 chars", llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("abcd"), img}}, 1201, 1201},
		{"assistant text, thinking, tool call name and compact args", llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{
			llm.TextBlock("abcd"), {Type: llm.BlockThinking, Thinking: "efgh"},
			{Type: llm.BlockToolCall, Name: "read", Arguments: json.RawMessage(`{ "path" : "a" }`)},
		}}, 6, 9},
		{"tool result with image", llm.Message{Role: llm.RoleToolResult, Content: []llm.ContentBlock{llm.TextBlock("abcd"), img, img}}, 2401, 2401},
		{"bash execution", llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "abcdef", ExitCode: &exit}, 2, 2},
		{"bash excluded from context", llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "abcdef", ExcludeFromContext: true}, 0, 0},
		{"custom", llm.Message{Role: llm.RoleCustom, Content: []llm.ContentBlock{llm.TextBlock("abcdefgh")}}, 2, 1},
		{"compaction summary", llm.Message{Role: llm.RoleCompactionSummary, Summary: "abcdefghijkl"}, 3, 1},
		{"branch summary", llm.Message{Role: llm.RoleBranchSummary, Summary: "abcd"}, 1, 1},
	}
	chars, bpe := NewEstimator(""), NewEstimator("gpt-4o")
	for _, tt := range tests {
		if got := chars.Message(&tt.m); got != tt.chars {
			t.Errorf("%s chars/4: %d, want %d", tt.name, got, tt.chars)
		}
		if got := bpe.Message(&tt.m); got != tt.bp {
			t.Errorf("%s o200k: %d, want %d", tt.name, got, tt.bp)
		}
	}
	if chars.Message(nil) != 0 {
		t.Error("nil message")
	}
}

func TestEstimatorMemoSeesTrimmedCopies(t *testing.T) {
	e := NewEstimator("gpt-4o")
	long := llm.Message{Role: llm.RoleToolResult, Timestamp: 5, Content: []llm.ContentBlock{llm.TextBlock(tokens(500, "word "))}}
	short := long
	short.Content = []llm.ContentBlock{llm.TextBlock("word")}
	a := Item{EntryID: "x", Kind: KindMessage, Message: &long}
	b := Item{EntryID: "x", Kind: KindMessage, Message: &short}
	first, memo := e.item(&a), e.item(&a)
	if first != e.Message(&long) || memo != first || first < 400 {
		t.Fatalf("memo %d, first %d, direct %d", memo, first, e.Message(&long))
	}
	if e.item(&b) != 1 {
		t.Fatalf("same id, other content: %d, want 1", e.item(&b))
	}
}

func TestContextTokens(t *testing.T) {
	asst := func(ts int64, u llm.Usage, stop llm.StopReason) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Timestamp: ts, Usage: u, StopReason: stop, Content: []llm.ContentBlock{llm.TextBlock("abcd")}}
	}
	tr := llm.Message{Role: llm.RoleToolResult, Timestamp: 50, Content: []llm.ContentBlock{llm.TextBlock(tokens(100, "r"))}}
	tests := []struct {
		name      string
		msgs      []llm.Message
		tokens    int
		lastUsage int
	}{
		{"no usage: everything estimated", []llm.Message{llm.UserText("abcdefgh", 1), tr}, 102, -1},
		{"usage plus trailing estimate", []llm.Message{llm.UserText("x", 1), asst(2, llm.Usage{Input: 1000, Output: 50, CacheRead: 200, CacheWrite: 10}, llm.StopToolUse), tr}, 1260 + 100, 1},
		{"totalTokens wins", []llm.Message{asst(2, llm.Usage{Input: 1, TotalTokens: 5000}, llm.StopStop)}, 5000, 0},
		{"aborted and error answers are skipped", []llm.Message{
			asst(2, llm.Usage{TotalTokens: 3000}, llm.StopStop), llm.UserText("abcd", 3),
			asst(4, llm.Usage{TotalTokens: 9999}, llm.StopError), asst(5, llm.Usage{TotalTokens: 9999}, llm.StopAborted),
		}, 3000 + 1 + 1 + 1, 0},
		{"usage from before the latest compaction is stale", []llm.Message{
			{Role: llm.RoleCompactionSummary, Summary: "abcdefgh", Timestamp: 100},
			asst(90, llm.Usage{TotalTokens: 30000}, llm.StopStop), // kept, from the old context
			llm.UserText("abcd", 110),
		}, 2 + 1 + 1, -1},
		{"usage after the compaction counts", []llm.Message{
			{Role: llm.RoleCompactionSummary, Summary: "abcdefgh", Timestamp: 100},
			asst(90, llm.Usage{TotalTokens: 30000}, llm.StopStop),
			asst(120, llm.Usage{TotalTokens: 4000}, llm.StopStop),
			tr,
		}, 4100, 2},
	}
	for _, tt := range tests {
		got, idx := ContextTokens(tt.msgs, nil)
		if got != tt.tokens || idx != tt.lastUsage {
			t.Errorf("%s: %d (usage at %d), want %d (at %d)", tt.name, got, idx, tt.tokens, tt.lastUsage)
		}
	}
}

func TestContextMessagesAfterCompaction(t *testing.T) {
	var b branch
	b.user("old")
	kept := b.user("kept")
	b.other()
	b.assistant("kept answer")
	b.compaction("SUM", kept, nil)
	b.add(KindBranchSummary, &llm.Message{Role: llm.RoleBranchSummary, Summary: "B"})
	b.add(KindBranchSummary, &llm.Message{Role: llm.RoleBranchSummary}) // empty: skipped as pi does
	b.user("new")
	got := ContextMessages(b.items)
	var desc []string
	for _, m := range got {
		desc = append(desc, string(m.Role)+":"+m.Text()+m.Summary)
	}
	want := []string{"compactionSummary:SUM", "user:kept", "assistant:kept answer", "branchSummary:B", "user:new"}
	if len(desc) != len(want) {
		t.Fatalf("%v, want %v", desc, want)
	}
	for i := range want {
		if desc[i] != want[i] {
			t.Fatalf("%v, want %v", desc, want)
		}
	}
	// The item-level count ignores the kept answer's stale usage by position.
	b.items[3].Message.Usage = llm.Usage{TotalTokens: 50000}
	if n := itemsContextTokens(b.items, nil); n != 1+1+3+1+1 {
		t.Errorf("items context tokens %d", n)
	}
}

// Long whitespace runs are counted in pieces (the tokenizer's pattern is
// quadratic on them); the count stays close to the tokenizer's own.
func TestCountBPESplitsLongWhitespaceRuns(t *testing.T) {
	e := NewEstimator("gpt-4o")
	codec := e.bpe()
	for _, s := range []string{
		strings.Repeat(" \n", 600),
		strings.Repeat("\u00a0\n", 400),
		"head" + strings.Repeat("\n", 900) + "tail",
		strings.Repeat("ok line\n\n\n", 100),
		strings.Repeat(" ", 1000) + "x",
	} {
		direct, err := codec.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		got := e.Text(s)
		pieces := len(s)/maxSpaceRun + 1
		if got < direct || got > direct+pieces {
			t.Errorf("%q...: %d tokens, tokenizer says %d (allowed up to +%d)", s[:8], got, direct, pieces)
		}
	}
}
