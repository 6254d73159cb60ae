package compaction

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Summarizer runs one model call; llm.Streamer satisfies it. Summarize may
// call it from two goroutines at once (split turns).
type Summarizer interface {
	Stream(ctx context.Context, req llm.Request, emit func(llm.Event)) llm.Message
}

// ErrSummaryFailed wraps every failed, aborted or empty summarizer answer.
var ErrSummaryFailed = errors.New("compaction: summarization failed")

// Result is pi's CompactionResult: the fields of the compaction entry to
// append. Details is stored as the entry's details.
type Result struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          FileOps
}

// Summarize is pi's compact(): it summarizes p.ToSummarize (an update of
// p.PreviousSummary when there is one) and, for a split turn, p.TurnPrefix in
// parallel, joins them as pi does and appends the <read-files> and
// <modified-files> lists. A failed, aborted or empty answer returns an error
// wrapping ErrSummaryFailed; the caller then leaves the session unchanged.
func Summarize(ctx context.Context, p *Preparation, model llm.Model, s Summarizer, customInstructions string) (Result, error) {
	if p == nil {
		return Result{}, fmt.Errorf("compaction: no preparation")
	}
	reserve := p.Settings.ReserveTokens
	var summary string
	if p.IsSplitTurn && len(p.TurnPrefix) > 0 {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var (
			wg              sync.WaitGroup
			once            sync.Once
			first           error // the failure that cancelled the other call
			history, prefix string
		)
		fail := func(err error) {
			once.Do(func() { first = err })
			cancel()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if len(p.ToSummarize) == 0 {
				history = "No prior history."
				return
			}
			var err error
			if history, err = chunkedHistorySummary(ctx, p.ToSummarize, model, reserve, s, customInstructions, p.PreviousSummary); err != nil {
				fail(err)
			}
		}()
		var err error
		if prefix, err = turnPrefixSummary(ctx, p.TurnPrefix, model, reserve, s); err != nil {
			fail(err)
		}
		wg.Wait()
		if first != nil {
			return Result{}, first
		}
		summary = history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
	} else {
		var err error
		summary, err = chunkedHistorySummary(ctx, p.ToSummarize, model, reserve, s, customInstructions, p.PreviousSummary)
		if err != nil {
			return Result{}, err
		}
	}
	summary += formatFileOperations(p.FileOps)
	return Result{
		Summary:          summary,
		FirstKeptEntryID: p.FirstKeptEntryID,
		TokensBefore:     p.TokensBefore,
		Details:          p.FileOps,
	}, nil
}

// historySummary is pi's generateSummary: the structured checkpoint, or its
// update when previous is set, with at most 0.8*reserve output tokens.
func historySummary(ctx context.Context, msgs []llm.Message, model llm.Model, reserve int, s Summarizer, custom, previous string) (string, error) {
	base := summarizationPrompt
	if previous != "" {
		base = updateSummarizationPrompt
	}
	if custom != "" {
		base += "\n\nAdditional focus: " + custom
	}
	prompt := "<conversation>\n" + SerializeConversation(msgs) + "\n</conversation>\n\n"
	if previous != "" {
		prompt += "<previous-summary>\n" + previous + "\n</previous-summary>\n\n"
	}
	prompt += base
	return complete(ctx, s, model, prompt, int(0.8*float64(reserve)), "Summarization")
}

// turnPrefixSummary is pi's generateTurnPrefixSummary: at most 0.5*reserve
// output tokens.
func turnPrefixSummary(ctx context.Context, msgs []llm.Message, model llm.Model, reserve int, s Summarizer) (string, error) {
	prompt := "<conversation>\n" + SerializeConversation(msgs) + "\n</conversation>\n\n" + turnPrefixSummarizationPrompt
	return complete(ctx, s, model, prompt, int(0.5*float64(reserve)), "Turn prefix summarization")
}

// summaryRequest builds the one-message request pi sends: the system prompt
// and the prompt as a user message. maxTokens is applied through the model's
// MaxTokens (lowered, never raised above the model's own limit).
func summaryRequest(model llm.Model, prompt string, maxTokens int) llm.Request {
	if maxTokens > 0 && (model.MaxTokens <= 0 || maxTokens < model.MaxTokens) {
		model.MaxTokens = maxTokens
	}
	return llm.Request{
		Model:        model,
		SystemPrompt: SummarizationSystemPrompt,
		Messages:     []llm.Message{llm.UserText(prompt, time.Now().UnixMilli())},
	}
}

// complete runs one summary request and returns its text blocks joined by
// newlines.
func complete(ctx context.Context, s Summarizer, model llm.Model, prompt string, maxTokens int, what string) (string, error) {
	resp := s.Stream(ctx, summaryRequest(model, prompt, maxTokens), func(llm.Event) {})
	switch {
	case resp.StopReason == llm.StopError:
		msg := resp.ErrorMessage
		if msg == "" {
			msg = "Unknown error"
		}
		return "", fmt.Errorf("%w: %s failed: %s", ErrSummaryFailed, what, msg)
	case resp.StopReason == llm.StopAborted || ctx.Err() != nil:
		if cause := context.Cause(ctx); cause != nil {
			return "", fmt.Errorf("%w: %s aborted: %w", ErrSummaryFailed, what, cause)
		}
		return "", fmt.Errorf("%w: %s aborted", ErrSummaryFailed, what)
	}
	var parts []string
	for i := range resp.Content {
		if resp.Content[i].Type == llm.BlockText {
			parts = append(parts, resp.Content[i].Text)
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("%w: %s returned no text", ErrSummaryFailed, what)
	}
	return text, nil
}
