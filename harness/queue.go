package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Delivery says how a prompt was taken.
type Delivery string

// Deliveries.
const (
	DeliveryRun       Delivery = "run"       // started a new run
	DeliverySteer     Delivery = "steer"     // delivered after the current tool calls
	DeliveryFollowUp  Delivery = "followUp"  // delivered when the run would end
	DeliveryInterrupt Delivery = "interrupt" // the run was aborted and this one started
)

// PromptOptions are the optional parts of a prompt.
type PromptOptions struct {
	Images []llm.ContentBlock
	// StreamingBehavior decides what a prompt does while a run is going:
	// "steer" (default), "followUp" or "interrupt".
	StreamingBehavior string
	// Context are the editor's attachments (files, selections, images),
	// added to the user message after its text (see contextBlocks).
	Context []ContextItem
	// Resources are MCP resources read and attached to the prompt.
	Resources []ResourceRef
}

// Prompt starts a run with text, or — while a run is going — steers, queues
// a follow-up or interrupts, as opts.StreamingBehavior says. It returns as
// soon as the prompt is accepted. /skill: and /template inputs are expanded.
func (h *Harness) Prompt(ctx context.Context, text string, opts PromptOptions) (Delivery, error) {
	switch opts.StreamingBehavior {
	case "", "steer", "followUp", "interrupt":
	default:
		return "", fmt.Errorf("%w: streamingBehavior %q (want steer|followUp|interrupt)", ErrInvalid, opts.StreamingBehavior)
	}
	attached, err := h.contextBlocks(ctx, opts.Context)
	if err != nil {
		return "", err
	}
	msg, err := h.userMessage(ctx, text, append(append([]llm.ContentBlock{}, attached...), opts.Images...))
	if err != nil {
		return "", err
	}
	res, err := h.resourceBlocks(ctx, opts.Resources)
	if err != nil {
		return "", err
	}
	msg.Content = append(msg.Content, res...)
	if h.isRunning() {
		switch opts.StreamingBehavior {
		case "followUp":
			return DeliveryFollowUp, h.enqueueMsg(ctx, msg, &h.followUp)
		case "interrupt":
			_, err := h.interruptMsg(ctx, msg)
			return DeliveryInterrupt, err
		default:
			return DeliverySteer, h.enqueueMsg(ctx, msg, &h.steering)
		}
	}
	return DeliveryRun, h.startRun(ctx, []llm.Message{msg})
}

func (h *Harness) userMessage(ctx context.Context, text string, images []llm.ContentBlock) (llm.Message, error) {
	expanded, isMCP, err := h.expandMCPCommand(ctx, text)
	if err != nil {
		return llm.Message{}, err
	}
	if !isMCP {
		if expanded, err = h.expandInput(ctx, text); err != nil {
			return llm.Message{}, err
		}
	}
	m := llm.UserText(expanded, h.now())
	m.Content = append(m.Content, images...)
	return m, nil
}

func (h *Harness) isRunning() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runDone != nil
}

// IsRunning reports whether a run is going.
func (h *Harness) IsRunning() bool { return h.isRunning() }

// Steer queues a message delivered after the current tool calls, before the
// next model call. When no run is going it starts one.
func (h *Harness) Steer(ctx context.Context, text string) error {
	return h.enqueue(ctx, text, &h.steering)
}

// FollowUp queues a message delivered when the run would end. When no run
// is going it starts one.
func (h *Harness) FollowUp(ctx context.Context, text string) error {
	return h.enqueue(ctx, text, &h.followUp)
}

// enqueue appends text to queue (h.steering or h.followUp, guarded by h.mu)
// while a run is going, or starts a run with it.
func (h *Harness) enqueue(ctx context.Context, text string, queue *[]llm.Message) error {
	m, err := h.userMessage(ctx, text, nil)
	if err != nil {
		return err
	}
	return h.enqueueMsg(ctx, m, queue)
}

func (h *Harness) enqueueMsg(ctx context.Context, m llm.Message, queue *[]llm.Message) error {
	h.mu.Lock()
	if h.runDone == nil {
		h.mu.Unlock()
		return h.startRun(ctx, []llm.Message{m})
	}
	*queue = append(*queue, m)
	h.mu.Unlock()
	h.emitQueue()
	return nil
}

// Interrupt aborts the run, clears the queue and sends text at once. It
// returns the queued texts it dropped (see AbortDrafts).
func (h *Harness) Interrupt(ctx context.Context, text string) ([]string, error) {
	m, err := h.userMessage(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	return h.interruptMsg(ctx, m)
}

func (h *Harness) interruptMsg(ctx context.Context, m llm.Message) ([]string, error) {
	h.mu.Lock()
	dropped := queuedTexts(h.steering, h.followUp)
	h.steering, h.followUp = nil, nil
	h.mu.Unlock()
	h.emitQueue()
	h.returnDrafts(dropped)
	if err := h.claimIdle(ctx); err != nil {
		return dropped, err
	}
	if err := h.startRunAs(ctx, []llm.Message{m}, true); err != nil {
		h.endSwitch()
		return dropped, err
	}
	return dropped, nil
}

// claimIdle aborts any run, waits for it and claims the idle harness (as
// beginSwitch) so that nothing starts in between; release with endSwitch or
// hand the claim to startRunAs. A run that starts while waiting (a queued
// message delivered at the end of the aborted one) is aborted too.
func (h *Harness) claimIdle(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		h.Abort()
		h.waitRun()
		err := h.beginSwitch()
		var busy *BusyError
		if err == nil || !errors.As(err, &busy) || busy.Phase != PhaseTurn && busy.Phase != PhaseIdle || attempt >= 20 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Abort stops the stream, any running tool, any wait on the user and a
// user command (agent/bash). Queued steering and follow-ups are dropped.
func (h *Harness) Abort() { h.AbortDrafts() }

// AbortDrafts is Abort, returning the texts of the queued messages it
// dropped (steering first), which are also announced once with a
// drafts_returned event so the editor can put them back in its input.
func (h *Harness) AbortDrafts() []string {
	h.mu.Lock()
	cancel, bash := h.runCancel, h.bashCancel
	dropped := queuedTexts(h.steering, h.followUp)
	h.steering, h.followUp = nil, nil
	h.mu.Unlock()
	if bash != nil {
		bash()
	}
	if cancel != nil {
		cancel()
		h.emitQueue()
	}
	h.returnDrafts(dropped)
	return dropped
}

func (h *Harness) returnDrafts(dropped []string) {
	if len(dropped) > 0 {
		h.emit(Event{Type: EvDraftsReturned, Drafts: dropped})
	}
}

func queuedTexts(qs ...[]llm.Message) []string {
	out := []string{}
	for _, q := range qs {
		for _, m := range q {
			out = append(out, userTypedText(m))
		}
	}
	return out
}

// userTypedText is what the user typed of a user message: its text
// without editor attachments.
func userTypedText(m llm.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == llm.BlockText && !strings.HasPrefix(c.Text, ContextTag) {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Queue returns the queued steering and follow-up texts.
func (h *Harness) Queue() (steering, followUp []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.steering {
		steering = append(steering, m.Text())
	}
	for _, m := range h.followUp {
		followUp = append(followUp, m.Text())
	}
	return steering, followUp
}

func (h *Harness) emitQueue() {
	s, f := h.Queue()
	h.emit(Event{Type: EvQueueUpdate, Steering: s, FollowUp: f})
}

func (h *Harness) takeSteering() []llm.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.steering
	h.steering = nil
	return out
}

func (h *Harness) takeFollowUp() []llm.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.followUp
	h.followUp = nil
	return out
}
