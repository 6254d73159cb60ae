package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// The per-turn benchmarks run the workload of issue 10 (the same one
// test/integration/compaction_window_test.go drives over stdio): a 40k-window
// model, and turns that each read one ~12 KB file (about 3k tokens of tool
// output) and then answer in one short sentence. The session is built with
// the real harness against the in-process fake LLM, compactions and trims
// included, and then one more turn is measured.

const (
	benchWindow    = 40000
	benchFileBytes = 12 * 1024
	// benchSummaryMatch is a phrase of pi's summarization system prompt: only
	// summary requests contain it.
	benchSummaryMatch = "You are a context summarization assistant"
)

// benchModels is a ModelSource holding one model.
type benchModels struct{ m llm.Model }

func (b benchModels) Find(context.Context, string) (llm.Model, error) { return b.m, nil }
func (b benchModels) Default(context.Context) (llm.Model, error)      { return b.m, nil }

// benchFile is the content of the file turn i reads: numbered lines of
// about 60 characters, benchFileBytes in all.
func benchFile(i int) string {
	var b strings.Builder
	for n := 1; b.Len() < benchFileBytes; n++ {
		fmt.Fprintf(&b, "f%03d line %03d: the quick brown fox jumps over the lazy dog %d\n", i, n, (i*31+n*7)%1000)
	}
	return b.String()
}

// benchTurn scripts one turn: a read tool call, then a short answer.
func benchTurn(i int) []llmtest.Response {
	path := fmt.Sprintf("src/f%03d.txt", i)
	return []llmtest.Response{
		{Text: "Reading " + path + ".", ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%03d", i), Name: "read", Arguments: `{"path":"` + path + `"}`}}, ChunkSize: 4096},
		{Text: fmt.Sprintf("%s holds numbered notes; nothing unusual in turn %d.", path, i), ChunkSize: 4096},
	}
}

// benchSummary is the summarizer's answer: a structured checkpoint of about
// 1.5 KB, as a real model writes.
var benchSummary = "## Goal\nRead the numbered source files one per turn and report on each.\n\n" +
	"## Constraints & Preferences\n- One file per turn\n- Short answers\n\n" +
	"## Progress\n### Done\n- [x] Read the files so far; each holds numbered notes\n\n### In Progress\n- [ ] Reading the next file\n\n### Blocked\n- (none)\n\n" +
	"## Key Decisions\n- **Read whole files**: they are small enough\n\n" +
	"## Next Steps\n1. Read the next file\n2. Report what it says\n\n" +
	"## Critical Context\n" + strings.Repeat("- Every file has about 200 lines of the form 'fNNN line NNN: ...'\n", 14)

// benchFixture is a harness with a session of some turns of the workload.
type benchFixture struct {
	h     *Harness
	srv   *llmtest.Server
	model llm.Model
	dir   string
	turns int
}

func newBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	srv := llmtest.NewServer(b, llmtest.Response{Match: benchSummaryMatch, Repeat: true, Text: benchSummary, ChunkSize: 4096})
	dir := b.TempDir()
	model := llm.Model{ID: "local-40k", Name: "Local 40k", Provider: "fake", API: "openai-completions", BaseURL: srv.BaseURL(),
		ContextWindow: benchWindow, MaxTokens: 4096, APIKey: "fake-key"}
	h := New(Config{
		Env:          env.NewLocal(dir),
		Models:       benchModels{model},
		Streamer:     llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Millisecond, MaxRetries: 1}),
		SessionsRoot: filepath.Join(dir, ".sessions"),
		AgentDir:     filepath.Join(dir, ".agent"),
		Yolo:         true,
	})
	b.Cleanup(func() { _ = h.Close() })
	return &benchFixture{h: h, srv: srv, model: model, dir: dir}
}

// turn runs one more turn of the workload and waits for it.
func (f *benchFixture) turn(b *testing.B) {
	f.turns++
	i := f.turns
	p := filepath.Join(f.dir, "src", fmt.Sprintf("f%03d.txt", i))
	if _, err := os.Stat(p); err != nil {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(benchFile(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f.srv.Append(benchTurn(i)...)
	ctx := context.Background()
	if _, err := f.h.Prompt(ctx, fmt.Sprintf("Turn %d: read src/f%03d.txt and tell me what it says.", i, i), PromptOptions{}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := f.h.Wait(ctx); err != nil {
		b.Fatal(err)
	}
}

// compactions counts the compaction entries on the branch.
func (f *benchFixture) compactions(b *testing.B) int {
	branch, err := f.h.currentSession().Branch("")
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, e := range branch {
		if e.Type == "compaction" {
			n++
		}
	}
	return n
}

// modelCall is the harness's own work before one model call: read the
// branch (with trims), plan (estimate, trim or compact?) and build the
// request (context, system prompt, tools).
func (f *benchFixture) modelCall(b *testing.B) {
	ctx := context.Background()
	items, err := f.h.branchItems(ctx)
	if err != nil {
		b.Fatal(err)
	}
	d := compaction.Plan(items, f.model.ContextWindow, f.h.budget(f.model), f.h.estimator(f.model), 0)
	if d.Tokens <= 0 {
		b.Fatalf("plan saw no tokens: %+v", d)
	}
	req, err := f.h.buildRequest(ctx, f.model, "")
	if err != nil || len(req.Messages) == 0 {
		b.Fatalf("build request: %v", err)
	}
}

// BenchmarkTurn measures the harness time per turn of the 40k-window,
// 3k-tokens-per-turn workload at turn 10 and at turn 150.
//
//   - plan: the harness's own work for one turn, i.e. twice (a turn makes two
//     model calls) reading the branch, planning and building the request.
//     No fake-server time is in it.
//   - full: one whole turn through Prompt and Wait, fake HTTP streaming,
//     the read tool and the fsynced session appends included. After each
//     turn the leaf is moved back, so every iteration starts at the same
//     turn.
func BenchmarkTurn(b *testing.B) {
	for _, n := range []int{10, 150} {
		b.Run(fmt.Sprintf("turn=%d", n), func(b *testing.B) {
			f := newBenchFixture(b)
			for f.turns < n {
				f.turn(b)
			}
			f.checkContextBranch(b)
			b.Logf("after %d turns: %d compactions", n, f.compactions(b))
			b.Run("plan", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f.modelCall(b)
					f.modelCall(b)
				}
			})
			b.Run("full", func(b *testing.B) {
				s := f.h.currentSession()
				leaf := s.LeafID()
				turns := f.turns
				b.ReportAllocs()
				for b.Loop() {
					f.turn(b)
					b.StopTimer()
					if err := s.Navigate(context.Background(), leaf); err != nil {
						b.Fatal(err)
					}
					f.turns = turns
					b.StartTimer()
				}
			})
		})
	}
}

// checkContextBranch makes sure that the part of the branch the harness
// reads gives the same context and the same plan as the whole branch.
func (f *benchFixture) checkContextBranch(b *testing.B) {
	ctx := context.Background()
	s := f.h.currentSession()
	whole, err := s.Branch("")
	if err != nil {
		b.Fatal(err)
	}
	var all []compaction.Item
	for _, e := range whole {
		all = append(all, entryItem(e))
	}
	all = compaction.ApplyTrims(all, f.h.loadTrims(s))
	part, err := f.h.branchItems(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if len(part) >= len(all) && f.compactions(b) > 0 {
		b.Fatalf("the context branch (%d items) is not shorter than the branch (%d)", len(part), len(all))
	}
	want := compaction.ContextMessages(all)
	if p := compaction.ContextMessages(part); !reflect.DeepEqual(want, p) {
		b.Fatalf("context differs: whole branch %d messages, context branch %d", len(want), len(p))
	}
	got, err := f.h.contextMessages(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		for i := range min(len(want), len(got)) {
			if !reflect.DeepEqual(want[i], got[i]) {
				b.Fatalf("contextMessages differs from the whole branch's context at message %d of %d/%d:\n%+v\n%+v", i, len(got), len(want), got[i], want[i])
			}
		}
		b.Fatalf("contextMessages: %d messages, the whole branch's context %d", len(got), len(want))
	}
	st := f.h.budget(f.model)
	da := compaction.Plan(all, f.model.ContextWindow, st, f.h.estimator(f.model), 0)
	dp := compaction.Plan(part, f.model.ContextWindow, st, f.h.estimator(f.model), 0)
	if da.Action != dp.Action || da.Tokens != dp.Tokens || da.Saved != dp.Saved || da.Irreducible != dp.Irreducible {
		b.Fatalf("plan differs: whole %+v, context branch %+v", da, dp)
	}
}
