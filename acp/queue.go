package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
)

// The prompt queue: one harness run per session/prompt, answered when its
// own turn ends.

// stopReason maps the harness's agent_end reason.
func (s *sess) stopReason(reason string) promptResult {
	switch harness.EndReason(reason) {
	case harness.EndLength:
		return promptResult{stop: sdk.StopReasonMaxTokens}
	case harness.EndAborted, harness.EndClientGone:
		return promptResult{stop: sdk.StopReasonCancelled}
	case harness.EndError:
		if strings.Contains(s.lastErr, "content_filter") || strings.Contains(s.lastErr, "refus") {
			return promptResult{stop: sdk.StopReasonRefusal}
		}
		msg := s.lastErr
		if msg == "" {
			msg = "the turn failed"
		}
		return promptResult{err: &sdk.RequestError{Code: -32603, Message: msg}}
	}
	return promptResult{stop: sdk.StopReasonEndTurn}
}

// finishTurn answers the running prompt and starts the next queued one.
func (s *sess) finishTurn(reason string) {
	r := s.stopReason(reason)
	s.lastErr = ""
	if t := s.tokensNow; t != nil {
		b := s.turnBase
		r.usage = &sdk.Usage{InputTokens: t.Input - b.Input, OutputTokens: t.Output - b.Output, TotalTokens: t.Total - b.Total}
		if n := t.CacheRead - b.CacheRead; n > 0 {
			r.usage.CachedReadTokens = sdk.Ptr(n)
		}
		if n := t.CacheWrite - b.CacheWrite; n > 0 {
			r.usage.CachedWriteTokens = sdk.Ptr(n)
		}
		s.turnBase = *t
	}
	s.pmu.Lock()
	var head *pending
	if len(s.prompts) > 0 {
		head = s.prompts[0]
		s.prompts = s.prompts[1:]
	}
	var next *pending
	if len(s.prompts) > 0 {
		next = s.prompts[0]
	}
	s.pmu.Unlock()
	if head != nil {
		s.answer(head, r)
	}
	if next != nil {
		s.start(next)
	}
}

// enqueue adds a prompt; it starts at once when nothing else waits.
func (s *sess) enqueue(p *pending) {
	s.pmu.Lock()
	if s.a.wire.cancelledAfter(string(s.id), p.seq) {
		// A cancel sent after this prompt was handled first.
		s.pmu.Unlock()
		s.answer(p, promptResult{stop: sdk.StopReasonCancelled})
		return
	}
	s.prompts = append(s.prompts, p)
	first := len(s.prompts) == 1
	s.pmu.Unlock()
	if first {
		s.start(p)
	}
}

// start runs p's turn: a built-in command, or a harness prompt (as a
// follow-up if a run the adapter did not start is going).
func (s *sess) start(p *pending) {
	if s.builtin(p) {
		return
	}
	if s.titleCheck.CompareAndSwap(false, true) {
		// The first prompt of a session without a name titles it.
		if info := s.h.SessionInfo(); info.Name == "" && len(s.h.DisplayHistory(context.Background())) == 0 {
			title := firstLine(p.text, 80)
			s.push(item{fn: func() {
				if !s.titled && title != "" {
					s.titled = true
					s.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: sdk.Ptr(title)}})
				}
			}})
		}
	}
	text, images := toHarnessPrompt(p.blocks)
	if len(images) > 0 {
		if m, err := s.h.Model(context.Background()); err == nil && len(m.Input) > 0 && !slices.Contains(m.Input, "image") {
			// The model takes no images: say so instead of failing the turn.
			text += fmt.Sprintf("\n\n(%d attached image(s) left out: %s does not take images)", len(images), m.Ref())
			images = nil
		}
	}
	if _, err := s.h.Prompt(context.Background(), text, harness.PromptOptions{Images: images, StreamingBehavior: harness.DeliveryFollowUp}); err != nil {
		s.push(item{fn: func() { s.failHead(p, mapErr(err)) }})
		return
	}
	if s.a.wire.cancelledAfter(string(s.id), p.seq) {
		// The cancel was handled while the run was starting.
		s.h.Abort()
	}
}

// failHead answers p (the head) with err and starts the next prompt.
func (s *sess) failHead(p *pending, err error) {
	s.pmu.Lock()
	if len(s.prompts) == 0 || s.prompts[0] != p {
		s.pmu.Unlock()
		return
	}
	s.prompts = s.prompts[1:]
	var next *pending
	if len(s.prompts) > 0 {
		next = s.prompts[0]
	}
	s.pmu.Unlock()
	s.answer(p, promptResult{err: err})
	if next != nil {
		s.start(next)
	}
}

// finishHead answers p (the head) with stop after the updates queued so
// far and starts the next prompt.
func (s *sess) finishHead(p *pending, stop sdk.StopReason) {
	s.push(item{fn: func() {
		s.pmu.Lock()
		if len(s.prompts) == 0 || s.prompts[0] != p {
			s.pmu.Unlock()
			return
		}
		s.prompts = s.prompts[1:]
		var next *pending
		if len(s.prompts) > 0 {
			next = s.prompts[0]
		}
		s.pmu.Unlock()
		s.answer(p, promptResult{stop: stop})
		if next != nil {
			s.start(next)
		}
	}})
}

// failQueued answers every prompt behind the running one with stop.
func (s *sess) failQueued(stop sdk.StopReason) {
	s.pmu.Lock()
	var queued []*pending
	if len(s.prompts) > 1 {
		queued = append(queued, s.prompts[1:]...)
		s.prompts = s.prompts[:1]
	}
	s.pmu.Unlock()
	for _, p := range queued {
		s.answer(p, promptResult{stop: stop})
	}
}

// cancel is session/cancel: abort the run (every wait observes it) and
// answer the queued prompts cancelled.
func (s *sess) cancel() {
	s.failQueued(sdk.StopReasonCancelled)
	s.h.Abort()
	// A head that never started a run (it failed, or was a command) is
	// answered by its own path; one whose run ends answers at agent_end.
}
