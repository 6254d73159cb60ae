package harness

import (
	"context"
	"fmt"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/memory"
)

const benchObservation = "<observations>\nDate: Dec 1, 2026\n* 🔴 (10:00) User asked to read the numbered files one per turn\n" +
	"* 🟡 (10:01) Agent read the next file: about 200 numbered lines\n</observations>\n" +
	"<current-task>\nRead the next file.\n</current-task>\n<suggested-response>\nRead the next file.\n</suggested-response>"

// BenchmarkMemoryTurn is BenchmarkTurn's "plan" in observational mode: the
// harness's own work for the two model calls of a turn at turn 10 and 150
// (memory's Prepare — activation and buffering decisions, no model call
// when the buffer is up to date — and building the request).
func BenchmarkMemoryTurn(b *testing.B) {
	for _, n := range []int{10, 150} {
		b.Run(fmt.Sprintf("turn=%d", n), func(b *testing.B) {
			f := newBenchFixture(b)
			f.h.cfg.Memory = memory.Settings{Mode: memory.ModeObservational}
			f.srv.Append(
				llmtest.Response{Match: "memory observer of a coding agent", Repeat: true, Text: benchObservation, ChunkSize: 4096},
				llmtest.Response{Match: "memory reflector of a coding agent", Repeat: true, Text: "<observations>\nDate: Dec 1, 2026\n* ✅ (10:00) read the files\n</observations>", ChunkSize: 4096},
			)
			for f.turns < n {
				f.turn(b)
			}
			eng, err := f.h.memoryEngine(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			eng.WaitIdle()
			st := eng.Status()
			b.Logf("after %d turns: %d messages observed, %d observer calls, %d reflector calls", n, st.ObservedMessages, st.ObserverCalls, st.ReflectorCalls)
			b.Run("plan", func(b *testing.B) {
				b.ReportAllocs()
				ctx := context.Background()
				for b.Loop() {
					for range 2 {
						if err := f.h.contextMgr(f.model).prepare(ctx); err != nil {
							b.Fatal(err)
						}
						if _, err := f.h.buildRequest(ctx, f.model, ""); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}
