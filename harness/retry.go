package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
)

// ErrNothingToRetry is Retry's answer when the branch does not end with a
// provider error.
var ErrNothingToRetry = errors.New("nothing to retry")

// Retry runs again after a run that ended with a provider error: the
// branch as it stands (the failed answer is recorded, and never sent to a
// model again) goes to the model with no new user message, as pi's
// continue does. It answers busy while a run is going, and wraps
// ErrInvalid when the branch's last message is not a failed answer.
func (h *Harness) Retry(ctx context.Context) error {
	if h.owner.isClosed() {
		return ErrClosed
	}
	if h.IsRunning() {
		return &BusyError{Phase: h.owner.Phase()}
	}
	msgs, err := h.contextMessages(ctx)
	if err != nil {
		return fmt.Errorf("retry: %w", err)
	}
	if len(msgs) == 0 {
		return fmt.Errorf("%w: %w: the session has no messages", ErrInvalid, ErrNothingToRetry)
	}
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleAssistant || last.StopReason != llm.StopError {
		return fmt.Errorf("%w: %w: the last run did not end with a provider error", ErrInvalid, ErrNothingToRetry)
	}
	return h.startRun(ctx, nil)
}
