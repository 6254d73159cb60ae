package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// The workload of issue 10: a 40k-window model and turns that each read
// one ~12 KB file (about 3k tokens of tool output) and then answer in one
// sentence. pi 0.73.1 compacts on 32 of 40 turns of it; pi-lsp must stay
// under the window and compact at most once per 4 turns. The same workload
// runs against pi in TestWindowWorkloadPi (scripts/bench-compaction.sh).

const (
	windowTokens    = 40000
	windowTurns     = 150
	windowFileBytes = 12 * 1024
)

// windowSummary is the summarizer's answer: a structured checkpoint of
// about 1.5 KB, as a real model writes.
var windowSummary = "## Goal\nRead the numbered source files one per turn and report on each.\n\n" +
	"## Constraints & Preferences\n- One file per turn\n- Short answers\n\n" +
	"## Progress\n### Done\n- [x] Read the files so far; each holds numbered notes\n\n### In Progress\n- [ ] Reading the next file\n\n### Blocked\n- (none)\n\n" +
	"## Key Decisions\n- **Read whole files**: they are small enough\n\n" +
	"## Next Steps\n1. Read the next file\n2. Report what it says\n\n" +
	"## Critical Context\n" + strings.Repeat("- Every file has about 200 lines of the form 'fNNN line NNN: ...'\n", 14)

func windowFile(i int) string {
	var b strings.Builder
	for n := 1; b.Len() < windowFileBytes; n++ {
		fmt.Fprintf(&b, "f%03d line %03d: the quick brown fox jumps over the lazy dog %d\n", i, n, (i*31+n*7)%1000)
	}
	return b.String()
}

func windowPrompt(i int) string {
	return fmt.Sprintf("Turn %d: read src/f%03d.txt and tell me what it says.", i, i)
}

// windowTurn scripts turn i: a read call, then a short answer. Big chunks
// keep the fake fast.
func windowTurn(i int) []llmtest.Response {
	path := fmt.Sprintf("src/f%03d.txt", i)
	return []llmtest.Response{
		{Text: "Reading " + path + ".", ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%03d", i), Name: "read", Arguments: `{"path":"` + path + `"}`}}, ChunkSize: 1 << 16},
		{Text: fmt.Sprintf("%s holds numbered notes; nothing unusual in turn %d.", path, i), ChunkSize: 1 << 16},
	}
}

func writeWindowFiles(t *testing.T, dir string, turns int) {
	t.Helper()
	for i := 1; i <= turns; i++ {
		writeFile(t, filepath.Join(dir, "src", fmt.Sprintf("f%03d.txt", i)), windowFile(i))
	}
}

// windowResult is what a run of the workload measured.
type windowResult struct {
	turns            int
	compactionTurns  []int // the turn (1-based prompt count) each compaction happened in
	trims            int   // trim records (pi-lsp only)
	maxRequestTokens int   // largest request, body bytes / 4 (the fake's usage)
	maxAgentTokens   int
	summarizerCalls  int
	agentCalls       int
}

func (r windowResult) String() string {
	return fmt.Sprintf("turns=%d compactions=%d compactions/turn=%.3f summarizer_calls=%d agent_calls=%d trim_records=%d max_request_tokens=%d max_agent_request_tokens=%d compaction_turns=%v",
		r.turns, len(r.compactionTurns), float64(len(r.compactionTurns))/float64(r.turns), r.summarizerCalls, r.agentCalls, r.trims,
		r.maxRequestTokens, r.maxAgentTokens, r.compactionTurns)
}

// readSessionFile returns the entries of a session file, header left out.
func readSessionFile(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) != nil || e["type"] == "session" {
			continue
		}
		out = append(out, e)
	}
	return out
}

// measureWindow reads the numbers off a session file and the request log.
func measureWindow(t *testing.T, turns int, file []map[string]any, reqs [][]byte) windowResult {
	t.Helper()
	r := windowResult{turns: turns}
	prompts := 0
	for _, e := range file {
		switch e["type"] {
		case "message":
			if m := entryMessage(t, e); m != nil && m.Role == "user" {
				prompts++
			}
		case "compaction":
			r.compactionTurns = append(r.compactionTurns, prompts)
		case "custom":
			if e["customType"] == "pi-lsp/trim" {
				r.trims++
			}
		}
	}
	for _, b := range reqs {
		n := len(b) / 4
		r.maxRequestTokens = max(r.maxRequestTokens, n)
		if isSummaryRequest(b) {
			r.summarizerCalls++
		} else {
			r.agentCalls++
			r.maxAgentTokens = max(r.maxAgentTokens, n)
		}
	}
	return r
}

func TestWindowWorkload150Turns(t *testing.T) {
	turns := windowTurns
	if testing.Short() {
		turns = 40 // -short: the length of pi's measurement in issue 10
	}
	e := newEnv(t, []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}},
		llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	writeWindowFiles(t, e.workspace, turns)
	// No display pushes to decode: the client only prompts and polls.
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}})
	var st state
	for i := 1; i <= turns; i++ {
		e.llm.Append(windowTurn(i)...)
		s.prompt(windowPrompt(i))
		st = s.waitIdle()
		if st.ContextTokens > windowTokens {
			t.Fatalf("turn %d: context %d tokens, over the %d window", i, st.ContextTokens, windowTokens)
		}
	}
	if p := e.llm.Pending(); p != 0 {
		t.Fatalf("%d scripted answers were not used: the run went off script", p)
	}
	file := readSessionFile(t, st.Path)
	reqs := e.llm.Requests()
	r := measureWindow(t, turns, file, reqs)
	t.Logf("pi-lsp workload: %s", r)
	t.Logf("pi-lsp state at the end: contextTokens=%d window=%d reserve=%d keep=%d compactions=%d",
		st.ContextTokens, st.ContextWindow, st.Tokens.ReserveTokens, st.Tokens.KeepRecent, st.Tokens.Compactions)

	// No request over the window (the fake counts body bytes / 4, which
	// also counts the JSON around the text: an overestimate).
	if r.maxRequestTokens > windowTokens {
		t.Errorf("a request of %d tokens, over the %d window", r.maxRequestTokens, windowTokens)
	}
	// At most one compaction per 4 turns.
	if len(r.compactionTurns) > turns/4 {
		t.Errorf("%d compactions in %d turns", len(r.compactionTurns), turns)
	}
	for k := 1; k < len(r.compactionTurns); k++ {
		if gap := r.compactionTurns[k] - r.compactionTurns[k-1]; gap < 4 {
			t.Errorf("compactions at turns %d and %d: less than 4 turns apart", r.compactionTurns[k-1], r.compactionTurns[k])
		}
	}
	if len(r.compactionTurns) == 0 && turns == windowTurns {
		t.Errorf("no compaction in %d turns of ~3k tokens on a %d window: the test proves nothing", turns, windowTokens)
	}
	if st.Tokens.Compactions != len(r.compactionTurns) {
		t.Errorf("session/state reports %d compactions, the session holds %d", st.Tokens.Compactions, len(r.compactionTurns))
	}

	// After each compaction the next model request carries the summary and
	// the kept tail. The summarizer requests of one compaction are adjacent
	// in the log and come in the order of the compaction entries.
	var cs []map[string]any
	for _, en := range file {
		if en["type"] == "compaction" {
			cs = append(cs, en)
		}
	}
	k := 0
	for i := 0; i < len(reqs); i++ {
		if !isSummaryRequest(reqs[i]) {
			continue
		}
		for i+1 < len(reqs) && isSummaryRequest(reqs[i+1]) {
			i++
		}
		if k >= len(cs) || i+1 >= len(reqs) {
			t.Fatalf("summarizer request %d without its compaction entry or a request after it", i)
		}
		branch := branchOf(file, cs[k]["id"].(string))
		checkCarriesCompaction(t, parseRequest(t, reqs[i+1]), branch, cs[k])
		k++
	}
	if k != len(cs) {
		t.Fatalf("%d compaction entries, %d summarizer rounds", len(cs), k)
	}
}

// branchOf returns the entries from the root to id, following parentId.
func branchOf(file []map[string]any, id string) []map[string]any {
	byID := map[string]map[string]any{}
	for _, e := range file {
		if s, ok := e["id"].(string); ok {
			byID[s] = e
		}
	}
	var rev []map[string]any
	for e := byID[id]; e != nil; {
		rev = append(rev, e)
		p, _ := e["parentId"].(string)
		e = byID[p]
	}
	out := make([]map[string]any, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// TestWindowWorkloadPi runs the same workload against the real pi 0.73.1,
// for the comparison scripts/bench-compaction.sh prints. It is a
// measurement, not a check of pi: it runs only when PI_LSP_BENCH_PI=1
// (PI_LSP_BENCH_TURNS sets the number of turns, default 150).
func TestWindowWorkloadPi(t *testing.T) {
	if os.Getenv("PI_LSP_BENCH_PI") != "1" {
		t.Skip("set PI_LSP_BENCH_PI=1 to run the window workload against pi (scripts/bench-compaction.sh)")
	}
	pitest.Bin(t)
	turns := windowTurns
	if n, err := strconv.Atoi(os.Getenv("PI_LSP_BENCH_TURNS")); err == nil && n > 0 {
		turns = n
	}
	spec := llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096}
	e := newEnv(t, []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}}, spec)
	writeWindowFiles(t, e.workspace, turns)
	pi := pitest.Start(t, piEnv(t, e, spec), e.workspace, "--provider", "fake", "--model", "m1", "--no-skills", "--no-context-files")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for i := 1; i <= turns; i++ {
		e.llm.Append(windowTurn(i)...)
		piPrompt(ctx, t, pi, windowPrompt(i))
	}
	st := getPiState(ctx, t, pi)
	if p := e.llm.Pending(); p != 0 {
		t.Fatalf("%d scripted answers were not used: pi went off script", p)
	}
	r := measureWindow(t, turns, readSessionFile(t, st.SessionFile), e.llm.Requests())
	t.Logf("pi workload: %s", r)
}
