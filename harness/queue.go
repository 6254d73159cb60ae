package harness

import (
	"context"
	"errors"
	"fmt"
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
	// Resources are MCP resources read and attached to the prompt.
	Resources []ResourceRef
}

// Prompt starts a run with text, or — while a run is going — steers, queues
// a follow-up or interrupts, as opts.StreamingBehavior says. It returns as
// soon as the prompt is accepted. /skill: and /template inputs are expanded.
func (h *Harness) Prompt(ctx context.Context, text string, opts PromptOptions) (Delivery, error) {
	if h.isRunning() {
		switch opts.StreamingBehavior {
		case "", "steer":
			return DeliverySteer, h.Steer(ctx, text)
		case "followUp":
			return DeliveryFollowUp, h.FollowUp(ctx, text)
		case "interrupt":
			return DeliveryInterrupt, h.Interrupt(ctx, text)
		default:
			return "", fmt.Errorf("%w: streamingBehavior %q (want steer|followUp|interrupt)", ErrInvalid, opts.StreamingBehavior)
		}
	}
	msg, err := h.userMessage(ctx, text, opts.Images)
	if err != nil {
		return "", err
	}
	res, err := h.resourceBlocks(ctx, opts.Resources)
	if err != nil {
		return "", err
	}
	msg.Content = append(msg.Content, res...)
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

// Interrupt aborts the run, clears the queue and sends text at once.
func (h *Harness) Interrupt(ctx context.Context, text string) error {
	m, err := h.userMessage(ctx, text, nil)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.steering, h.followUp = nil, nil
	h.mu.Unlock()
	h.emitQueue()
	if err := h.claimIdle(ctx); err != nil {
		return err
	}
	if err := h.startRunAs(ctx, []llm.Message{m}, true); err != nil {
		h.endSwitch()
		return err
	}
	return nil
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
func (h *Harness) Abort() {
	h.mu.Lock()
	cancel, bash := h.runCancel, h.bashCancel
	h.steering, h.followUp = nil, nil
	h.mu.Unlock()
	if bash != nil {
		bash()
	}
	if cancel != nil {
		cancel()
		h.emitQueue()
	}
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
