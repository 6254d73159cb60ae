package harness

import (
	"context"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// QueueKind names one of the two queues of a running run.
type QueueKind string

// The queues.
const (
	QueueSteering QueueKind = "steering" // delivered after the current tool calls
	QueueFollowUp QueueKind = "followUp" // delivered when the run would end
)

// EditQueued changes or removes one queued message before the run takes
// it: the message at index of queue q, which must still read expect (what
// the queue showed the user; it may have been delivered meanwhile). text
// nil removes it; otherwise its typed text becomes *text and what was
// attached to it stays. A message that is no longer there wraps
// ErrNotFound.
func (h *Harness) EditQueued(ctx context.Context, q QueueKind, index int, expect string, text *string) error {
	if q != QueueSteering && q != QueueFollowUp {
		return fmt.Errorf("%w: queue %q (want steering|followUp)", ErrInvalid, q)
	}
	var repl *llm.Message
	if text != nil {
		m, err := h.userMessage(ctx, *text, nil)
		if err != nil {
			return err
		}
		repl = &m
	}
	return h.owner.editQueued(q == QueueFollowUp, index, expect, repl)
}

// editQueued is EditQueued on the owner's queues, under its lock.
func (r *runner) editQueued(followUp bool, index int, expect string, repl *llm.Message) error {
	r.lock()
	var evs []Event
	err := r.closedOr(func() error {
		q := &r.steering
		if followUp {
			q = &r.followUp
		}
		if index < 0 || index >= len(*q) || (*q)[index].Text() != expect {
			return fmt.Errorf("%w: the queued message %d is no longer %q (it was delivered or changed)", ErrNotFound, index, expect)
		}
		if repl == nil {
			*q = append((*q)[:index:index], (*q)[index+1:]...)
		} else {
			old := (*q)[index]
			m := *repl
			if len(old.Content) > 0 && old.Content[0].Type == llm.BlockText {
				// The first block is what was typed; the rest (editor
				// context, images, resources) stays with the message.
				m.Content = append(m.Content, old.Content[1:]...)
			}
			next := append([]llm.Message(nil), *q...)
			next[index] = m
			*q = next
		}
		evs = []Event{r.queueEventLocked()}
		return nil
	})
	r.unlock(evs)
	return err
}
