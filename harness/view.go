package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// What the editor sees of a session without the model's context being
// built: the token count from the context's tail, the message count from
// the index, and the display's pages decoded on demand. Opening a large
// session costs what is shown.

// tailMessages is the end of the context its token count is made of
// (session.ContextTail), with the recorded trims applied: compaction's
// ContextTokens gives the same count for it as for the whole context.
func (h *Harness) tailMessages(ctx context.Context) []llm.Message {
	s := h.currentSession()
	if s == nil {
		return []llm.Message{}
	}
	c, err := s.ContextTail(ctx)
	if err != nil {
		h.log.Warn("context tail", "err", err)
		return []llm.Message{}
	}
	return h.withTrims(s, c)
}

// messageCount is the number of messages in the model's context, counted
// from the index.
func (h *Harness) messageCount(ctx context.Context) int {
	s := h.currentSession()
	if s == nil {
		return 0
	}
	info, err := s.ContextInfo(ctx)
	if err != nil {
		return 0
	}
	return info.Messages
}

// ContextSlots lists the entries of the current context, undecoded, for
// paging the display (nil without a session).
func (h *Harness) ContextSlots(ctx context.Context) ([]session.Slot, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil
	}
	return s.ContextSlots(ctx)
}

// DisplayMessages decodes the context messages of the entries ids as the
// editor may see them (tool output with secrets masked), with the entry id
// of each.
func (h *Harness) DisplayMessages(ctx context.Context, ids []string) ([]llm.Message, []string, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil, nil
	}
	msgs, out, err := s.ContextMessages(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	for i := range msgs {
		msgs[i] = h.displayCopy(msgs[i])
	}
	return msgs, out, nil
}
