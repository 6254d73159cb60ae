package compaction

import (
	"context"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Chunked summarization: the part to summarize can be far larger than the
// summarizer's window (the first prompt on a session whose branch holds
// many windows of history). It is then summarized in chunks that each fit,
// oldest first, each chunk's summary folded into the next as its previous
// summary (pi's update prompt), so no request is over the window.

// summaryCharsPerToken is the estimate a chunk is sized with: code and
// numbers are 2-3 characters a token, so 2 keeps a margin whatever the
// content.
const summaryCharsPerToken = 2

// summaryOverhead is what a summary request adds to its conversation, in
// tokens: the system prompt, the instructions and the previous summary's
// frame.
const summaryOverhead = 3000

// chunkBudget is the number of characters of serialized conversation one
// summary request may carry on model with reserve tokens reserved (0: no
// limit known).
func chunkBudget(model llm.Model, reserve int, previous string) int {
	if model.ContextWindow <= 0 {
		return 0
	}
	tokens := model.ContextWindow - int(0.8*float64(reserve)) - summaryOverhead - len(previous)/summaryCharsPerToken
	return max(tokens, 1000) * summaryCharsPerToken
}

// chunkedHistorySummary is historySummary for a conversation of any size.
func chunkedHistorySummary(ctx context.Context, msgs []llm.Message, model llm.Model, reserve int, s Summarizer, custom, previous string) (string, error) {
	for len(msgs) > 0 {
		budget := chunkBudget(model, reserve, previous)
		n := len(msgs)
		if budget > 0 {
			n = fitChunk(msgs, budget)
		}
		summary, err := historySummary(ctx, msgs[:n], model, reserve, s, custom, previous)
		if err != nil {
			return "", err
		}
		previous, msgs = summary, msgs[n:]
	}
	return previous, nil
}

// fitChunk is how many of msgs (at least one) serialize within budget
// characters.
func fitChunk(msgs []llm.Message, budget int) int {
	size := 0
	for i := range msgs {
		size += len(SerializeConversation(msgs[i:i+1])) + 2
		if size > budget {
			return max(i, 1)
		}
	}
	return len(msgs)
}
