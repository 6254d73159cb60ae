package acp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// answer200 is the 200-word answer of display's wire benchmark.
func answer200() string {
	words := strings.Fields(`the harness keeps a long agent session alive by rebuilding the prompt on
	every turn and compacting history before the context window fills while the editor simply draws
	one coalesced display state that arrives as small appended diffs`)
	var b strings.Builder
	for i := range 200 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i%len(words)])
	}
	b.WriteByte('.')
	return b.String()
}

type streamStats struct {
	answer, bytes, updates, chunks int
	chunkBytes                     int // of the agent_message_chunk lines alone
}

// streamTurn streams a 200-word answer in 4-character chunks, one every
// delayMs, through Serve and weighs every session/update line of the turn
// (chunks, usage, title), newline included.
func streamTurn(tb testing.TB, delayMs int) streamStats {
	ans := answer200()
	f := newFixture(tb, []llmtest.Response{{Text: ans, ChunkSize: 4, ChunkDelayMs: delayMs}}, nil)
	sid := f.initSession(tb, map[string]any{})
	// The commands of session/new follow its answer: they belong to the
	// session, not to the turn.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, us := f.c.snapshot()
		if slices.ContainsFunc(us, func(u map[string]any) bool { return updateKind(u) == "available_commands_update" }) {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatal("no available_commands_update after session/new")
		}
	}
	before, _ := f.c.snapshot()
	f.c.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "explain"}}}, nil)
	lines, _ := f.c.snapshot()
	st := streamStats{answer: len(ans)}
	var text strings.Builder
	for _, l := range lines[len(before):] {
		if !bytes.Contains(l, []byte(`"session/update"`)) {
			continue
		}
		st.updates++
		st.bytes += len(l) + 1
		var m struct {
			Params struct {
				Update struct {
					Kind    string `json:"sessionUpdate"`
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(l, &m) == nil && m.Params.Update.Kind == "agent_message_chunk" {
			st.chunks++
			st.chunkBytes += len(l) + 1
			text.WriteString(m.Params.Update.Content.Text)
		}
	}
	if text.String() != ans {
		tb.Fatalf("streamed text differs from the answer (%d of %d bytes)", text.Len(), len(ans))
	}
	return st
}

// TestStreamBytesBurst: an answer that arrives at once costs at most twice
// its text in session/update bytes (the paced rates are in the benchmark).
func TestStreamBytesBurst(t *testing.T) {
	st := streamTurn(t, 0)
	ratio := float64(st.bytes) / float64(st.answer)
	t.Logf("burst: answer %d bytes; %d updates (%d chunks, %d bytes), %d bytes (%.2fx)", st.answer, st.updates, st.chunks, st.chunkBytes, st.bytes, ratio)
	if ratio > 2 {
		t.Errorf("updates weigh %.2fx the answer, want <= 2x", ratio)
	}
}

// BenchmarkStreamBytes reports the bytes of session/update lines per byte
// of answer text for one streamed 200-word answer, at once and at 800, 400
// and 200 characters per second: all of the turn's updates (updates/answer:
// chunks, title, usage) and the agent_message_chunk lines alone
// (chunks/answer, the measure of codex-acp 0.16.0's 24.8x).
func BenchmarkStreamBytes(b *testing.B) {
	for _, c := range []struct {
		name    string
		delayMs int
	}{{"burst", 0}, {"800cps", 5}, {"400cps", 10}, {"200cps", 20}} {
		b.Run(c.name, func(b *testing.B) {
			var st streamStats
			start := time.Now()
			for range b.N {
				st = streamTurn(b, c.delayMs)
			}
			b.ReportMetric(float64(st.bytes)/float64(st.answer), "updates/answer")
			b.ReportMetric(float64(st.chunkBytes)/float64(st.answer), "chunks/answer")
			b.ReportMetric(float64(st.chunks), "chunks")
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/turn")
		})
	}
}
