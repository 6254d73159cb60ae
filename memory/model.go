package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Streamer runs one model call; llm.Streamer satisfies it.
type Streamer interface {
	Stream(ctx context.Context, req llm.Request, emit func(llm.Event)) llm.Message
}

// ErrModel wraps a failed, aborted or empty observer or reflector call.
var ErrModel = errors.New("memory: model call failed")

// call runs one request and returns its text.
func call(ctx context.Context, s Streamer, model llm.Model, system, prompt string, now time.Time, what string) (string, error) {
	req := llm.Request{Model: model, SystemPrompt: system, Messages: []llm.Message{llm.UserText(prompt, now.UnixMilli())}}
	resp := s.Stream(ctx, req, func(llm.Event) {})
	switch {
	case resp.StopReason == llm.StopError:
		msg := resp.ErrorMessage
		if msg == "" {
			msg = "unknown error"
		}
		return "", fmt.Errorf("%w: the %s failed: %s", ErrModel, what, msg)
	case resp.StopReason == llm.StopAborted || ctx.Err() != nil:
		return "", fmt.Errorf("%w: the %s was aborted", ErrModel, what)
	}
	text := strings.TrimSpace(resp.Text())
	if text == "" {
		return "", fmt.Errorf("%w: the %s answered nothing", ErrModel, what)
	}
	return text, nil
}

// recentTail is the end of the observation log the observer sees as
// context, so that it does not write the same facts again.
func recentTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// Observe runs the observer over batches (see Batches), one call each, in
// order, and joins their observations; the current task and the suggested
// continuation are the last batch's. prior is the observation log so far
// (its tail is shown as context, never as facts to copy).
func Observe(ctx context.Context, s Streamer, model llm.Model, batches []string, prior string, now time.Time) (Output, int, error) {
	var out Output
	var obs []string
	calls := 0
	for _, b := range batches {
		var p strings.Builder
		if t := recentTail(prior+"\n"+strings.Join(obs, "\n"), 4000); strings.TrimSpace(t) != "" {
			p.WriteString("<previous-observations>\n")
			p.WriteString(strings.TrimSpace(t))
			p.WriteString("\n</previous-observations>\n(already recorded: do not repeat these)\n\n")
		}
		p.WriteString("<messages>\n")
		p.WriteString(b)
		p.WriteString("\n</messages>\n\nWrite the new observations for these messages, then the current task and the suggested response.")
		text, err := call(ctx, s, model, ObserverSystemPrompt, p.String(), now, "observer")
		calls++
		if err != nil {
			return Output{}, calls, err
		}
		o, err := ParseObserver(text)
		if err != nil {
			return Output{}, calls, err
		}
		obs = append(obs, o.Observations)
		if o.CurrentTask != "" {
			out.CurrentTask = o.CurrentTask
		}
		if o.Suggested != "" {
			out.Suggested = o.Suggested
		}
	}
	out.Observations = strings.Join(obs, "\n")
	if strings.TrimSpace(out.Observations) == "" {
		return Output{}, calls, fmt.Errorf("%w: nothing to observe", ErrBadOutput)
	}
	return out, calls, nil
}

// ErrReflectionRejected says no rung of the ladder produced a usable,
// smaller reflection: the observations stay as they are.
var ErrReflectionRejected = errors.New("memory: every reflection attempt was rejected")

// Reflect condenses log (of tokens tokens) to at most target tokens. Each
// attempt that is empty, degenerate or not smaller than both tokens and
// target moves one rung down CompressionLadder; a model failure ends at
// once. It never returns an empty text without an error.
func Reflect(ctx context.Context, s Streamer, model llm.Model, log string, tokens, target int, count func(string) int, now time.Time) (text string, level, calls int, err error) {
	var reasons []string
	for level = range CompressionLadder {
		prompt := "<observations>\n" + log + "\n</observations>\n\n" + CompressionLadder[level] +
			fmt.Sprintf("\nThe log is about %d tokens; the condensed log must be under %d tokens.", tokens, target)
		answer, err := call(ctx, s, model, ReflectorSystemPrompt, prompt, now, "reflector")
		calls++
		if err != nil {
			return "", level, calls, err
		}
		out, perr := ParseReflection(answer)
		if perr != nil {
			reasons = append(reasons, fmt.Sprintf("level %d: %v", level, perr))
			continue
		}
		if n := count(out); n >= tokens || n > target {
			reasons = append(reasons, fmt.Sprintf("level %d: %d tokens, not under %d", level, n, min(tokens, target+1)))
			continue
		}
		return out, level, calls, nil
	}
	return "", len(CompressionLadder) - 1, calls, fmt.Errorf("%w (%s)", ErrReflectionRejected, strings.Join(reasons, "; "))
}
