package harness

import (
	"context"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

// PromptOptions are the optional parts of a prompt.
type PromptOptions struct {
	Images []llm.ContentBlock
	// StreamingBehavior decides what a prompt does while a run is going:
	// DeliverySteer (the default, also ""), DeliveryFollowUp or
	// DeliveryInterrupt (ParseDelivery reads the wire's name).
	StreamingBehavior Delivery
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
	behavior, err := ParseDelivery(string(opts.StreamingBehavior))
	if err != nil {
		return "", err
	}
	attached, err := h.contextBlocks(ctx, opts.Context)
	if err != nil {
		return "", err
	}
	msg, err := h.userMessage(ctx, text, append(append([]llm.ContentBlock{}, attached...), opts.Images...))
	if err != nil {
		return "", err
	}
	res, err := h.resourceBlocks(ctx, append(append([]ResourceRef(nil), opts.Resources...), h.mcpMentions(text)...))
	if err != nil {
		return "", err
	}
	msg.Content = append(msg.Content, res...)
	d, _, err := h.submit(ctx, msg, behavior)
	return d, err
}

// submit hands m to the run owner: it starts a run on the idle harness or
// is queued on (or interrupts) the running one.
func (h *Harness) submit(ctx context.Context, m llm.Message, behavior Delivery) (Delivery, []string, error) {
	if h.owner.isClosed() {
		return "", nil, ErrClosed
	}
	model, err := h.Model(ctx)
	if err != nil {
		return "", nil, err
	}
	if _, err := h.ensureSession(ctx); err != nil {
		return "", nil, err
	}
	return h.owner.submit(model, m, behavior)
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

// IsRunning reports whether a run is going.
func (h *Harness) IsRunning() bool { return h.owner.running() }

// Steer queues a message delivered after the current tool calls, before the
// next model call. When no run is going it starts one.
func (h *Harness) Steer(ctx context.Context, text string) error {
	return h.enqueue(ctx, text, DeliverySteer)
}

// FollowUp queues a message delivered when the run would end. When no run
// is going it starts one.
func (h *Harness) FollowUp(ctx context.Context, text string) error {
	return h.enqueue(ctx, text, DeliveryFollowUp)
}

func (h *Harness) enqueue(ctx context.Context, text string, behavior Delivery) error {
	m, err := h.userMessage(ctx, text, nil)
	if err != nil {
		return err
	}
	_, _, err = h.submit(ctx, m, behavior)
	return err
}

// Interrupt aborts the run, clears the queue and sends text at once: it
// starts as soon as the aborted run has ended. It returns the queued texts
// it dropped (see AbortDrafts).
func (h *Harness) Interrupt(ctx context.Context, text string) ([]string, error) {
	m, err := h.userMessage(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	_, dropped, err := h.submit(ctx, m, DeliveryInterrupt)
	return dropped, err
}

// Abort stops the stream, any running tool, any wait on the user and a
// user command (agent/bash). Queued steering and follow-ups are dropped.
func (h *Harness) Abort() { h.AbortDrafts() }

// AbortDrafts is Abort, returning the texts of the queued messages it
// dropped (steering first), which are also announced once with a
// drafts_returned event so the editor can put them back in its input.
func (h *Harness) AbortDrafts() []string {
	if _, ended := h.owner.stopGoal("aborted by the user"); ended != nil {
		h.recordGoal(context.Background(), ended.session, "end", ended.Goal)
	}
	h.cancelBash()
	return h.owner.abort()
}

// cancelBash cancels a user command (agent/bash) in progress.
func (h *Harness) cancelBash() {
	h.mu.Lock()
	bash := h.bashCancel
	h.mu.Unlock()
	if bash != nil {
		bash()
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
func (h *Harness) Queue() (steering, followUp []string) { return h.owner.queue() }
