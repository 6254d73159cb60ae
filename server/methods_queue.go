package server

import (
	"context"
	"errors"
	"strings"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// registerQueue adds agent/retry (run again after a provider error) and
// agent/editQueue (change or remove a queued message).
func (a *agent) registerQueue(s *rpc.Server) {
	s.Register("agent/retry", handle(a, func(ctx context.Context, h *harness.Harness, _ empty) (any, error) {
		if err := h.Retry(ctx); err != nil {
			if errors.Is(err, harness.ErrNothingToRetry) {
				return nil, rpc.ErrInvalidParams(strings.TrimPrefix(err.Error(), harness.ErrInvalid.Error()+": "))
			}
			return nil, err
		}
		return protocol.RetryResult{Accepted: true}, nil
	}))
	s.Register("agent/editQueue", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.EditQueueParams) (any, error) {
		switch {
		case p.Queue != string(harness.QueueSteering) && p.Queue != string(harness.QueueFollowUp):
			return nil, rpc.ErrInvalidParams(`"queue" must be "steering" or "followUp"`)
		case p.Index < 0:
			return nil, rpc.ErrInvalidParams(`"index" must not be negative`)
		case p.Text != nil && strings.TrimSpace(*p.Text) == "":
			return nil, rpc.ErrInvalidParams(`"text" must not be empty (leave it out to remove the message)`)
		}
		err := h.EditQueued(ctx, harness.QueueKind(p.Queue), p.Index, p.Expect, p.Text)
		if errors.Is(err, harness.ErrNotFound) {
			return nil, rpc.ErrNotFound(strings.TrimPrefix(err.Error(), harness.ErrNotFound.Error()+": "))
		}
		return empty{}, err
	}))
}
