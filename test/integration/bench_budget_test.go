package integration

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// The long runs of issue 15 are benchmarks (make bench), not tests: the
// 30-turn TestSeqTurnsCalibratedBudget keeps the suite short.

// seqRun runs turns of `seq 1 count` against a 40k model and a fake that
// counts like cl100k and rejects over-window requests with a 400. After
// each turn in rssAt it reads the server's VmRSS (MB).
func seqRun(b *testing.B, turns, count int, rssAt map[int]float64) (requests, compactions, over int) {
	script := []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}}
	cmd := fmt.Sprintf(`{"command":"seq 1 %d"}`, count)
	for i := 1; i <= turns; i++ {
		p := fmt.Sprintf("Turn %04d: count", i)
		script = append(script,
			llmtest.Response{Match: p, ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%04d", i), Name: "bash", Arguments: cmd}}, ChunkSize: 1 << 16},
			llmtest.Response{Match: p, Text: fmt.Sprintf("Counted to %d in turn %d.", count, i), ChunkSize: 1 << 16})
	}
	e := newEnv(b, script, llmtest.ModelSpec{ID: "m1", Name: "M1", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokens(llmtest.RealisticTokens, windowTokens)
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}})
	for i := 1; i <= turns; i++ {
		s.prompt(fmt.Sprintf("Turn %04d: count to %d with seq.", i, count))
		s.waitIdle()
		want := fmt.Sprintf("Counted to %d in turn %d.", count, i)
		s.waitFor("the answer of turn "+fmt.Sprint(i), func() bool {
			v, _ := s.Display()
			if len(v.State.Errors) > 0 {
				b.Fatalf("turn %d: %v", i, v.State.Errors)
			}
			n := len(v.State.Items)
			return n > 0 && v.State.Items[n-1].Kind == "assistant" && strings.Contains(v.State.Items[n-1].Text, want)
		})
		if _, ok := rssAt[i]; ok {
			rssAt[i] = vmRSS(s.cmd.Process.Pid)
		}
	}
	reqs := e.llm.Requests()
	for _, body := range reqs {
		if llmtest.RealisticTokens(body) > windowTokens {
			over++
		}
		if isSummaryRequest(body) {
			compactions++
		}
	}
	return len(reqs), compactions, over
}

// vmRSS reads the resident set of pid in MB (0 without /proc).
func vmRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkSeqTurns150: 150 turns of `seq 1 2500` (about 7.5k provider
// tokens of numbers each) on a 40k window. Reports the requests, the
// summarizer calls per turn (goal at most 0.25) and the requests over the
// window (goal 0).
func BenchmarkSeqTurns150(b *testing.B) {
	const turns = 150
	for b.Loop() {
		reqs, comps, over := seqRun(b, turns, 2500, nil)
		b.ReportMetric(float64(reqs), "requests")
		b.ReportMetric(float64(comps)/turns, "compactions/turn")
		b.ReportMetric(float64(over), "over-window")
	}
}

// BenchmarkEndurance1000: 1,000 turns of about 3k provider tokens of tool
// output each (`seq 1 1000`) on a 40k window. Reports the server's RSS
// after 100 and after 1,000 turns and their ratio (goal at most 1.5).
func BenchmarkEndurance1000(b *testing.B) {
	const turns = 1000
	for b.Loop() {
		rss := map[int]float64{100: 0, turns: 0}
		_, comps, over := seqRun(b, turns, 1000, rss)
		b.ReportMetric(rss[100], "MB-rss@100")
		b.ReportMetric(rss[turns], "MB-rss@1000")
		if rss[100] > 0 {
			b.ReportMetric(rss[turns]/rss[100], "rss-ratio")
		}
		b.ReportMetric(float64(comps)/turns, "compactions/turn")
		b.ReportMetric(float64(over), "over-window")
	}
}
