package compaction

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// millionTokenBranch is ~1M tokens (chars/4): 300 turns of a prompt, a tool
// call, 3000 tokens of output and an answer. The last answer carries usage.
func millionTokenBranch() []Item {
	var b branch
	for turn := 1; turn <= 300; turn++ {
		toolTurn(&b, turn, 3000, 0)
		b.lastMsg().Content = append(b.lastMsg().Content, llm.TextBlock(tokens(250, "x")))
	}
	b.lastMsg().Usage = llm.Usage{Input: 1_000_000}
	return b.items
}

func BenchmarkPrepare1M(b *testing.B) {
	items := millionTokenBranch()
	b.Logf("branch: %d entries, %d tokens (chars/4)", len(items), estimateAll(items, nil))
	for _, family := range []string{"unknown", "gpt-4o"} {
		b.Run(EncodingFor(family), func(b *testing.B) {
			e := NewEstimator(family)
			s := Settings{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Prepare(items, s, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEstimate1M(b *testing.B) {
	items := millionTokenBranch()
	for i := range items { // no usage: estimate every message
		if m := items[i].Message; m != nil {
			m.Usage = llm.Usage{}
		}
	}
	b.Run("chars", func(b *testing.B) {
		for b.Loop() {
			itemsContextTokens(items, nil)
		}
	})
	b.Run("o200k-cold", func(b *testing.B) {
		NewEstimator("gpt-4o").Text("load the vocabulary") // outside the timing
		for b.Loop() {
			itemsContextTokens(items, NewEstimator("gpt-4o"))
		}
	})
	b.Run("o200k-memo", func(b *testing.B) {
		e := NewEstimator("gpt-4o")
		itemsContextTokens(items, e)
		for b.Loop() {
			itemsContextTokens(items, e)
		}
	})
}

// BenchmarkPlan40k is the per-model-call cost of the harness's check in the
// 40k-window workload: re-apply recorded trims and Plan.
func BenchmarkPlan40k(b *testing.B) {
	const window = 40960
	s := BudgetFor(window, nil)
	for _, turn := range []int{10, 150} {
		_, items, trims := simulate(b, window, turn, 3000, s, false)
		for _, family := range []string{"unknown", "gpt-4o"} {
			b.Run(fmt.Sprintf("turn%d/%s", turn, EncodingFor(family)), func(b *testing.B) {
				e := NewEstimator(family)
				b.ReportAllocs()
				for b.Loop() {
					Plan(ApplyTrims(items, trims), window, s, e, 0)
				}
			})
		}
	}
}

// BenchmarkEstimateWhitespace: 200 KB of blank lines with trailing spaces,
// quadratic in the tokenizer's split pattern unless runs are split.
func BenchmarkEstimateWhitespace(b *testing.B) {
	s := strings.Repeat(" \n", 100_000)
	e := NewEstimator("gpt-4o")
	e.Text("load")
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		e.Text(s)
	}
}
