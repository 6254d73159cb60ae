package server

import (
	"context"
	"github.com/pi-lsp/pi-lsp/rpc"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// registerJobs registers jobs/list, jobs/output and jobs/kill: the
// session's background jobs (bash with background).
func (a *agent) registerJobs(s *rpc.Server) {
	s.Register("jobs/list", handle(a, func(ctx context.Context, h *harness.Harness, _ protocol.JobsListParams) (any, error) {
		views := h.Jobs()
		out := protocol.JobsListResult{Jobs: make([]protocol.Job, 0, len(views))}
		for _, v := range views {
			out.Jobs = append(out.Jobs, display.WireJob(v))
		}
		return out, nil
	}))
	s.Register("jobs/output", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.JobsOutputParams) (any, error) {
		var after int64
		if p.After != nil {
			after = *p.After
		}
		text, next, err := h.JobOutput(p.JobID, after)
		if err != nil {
			return nil, err
		}
		return protocol.JobsOutputResult{Output: text, Next: next}, nil
	}))
	s.Register("jobs/kill", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.JobsKillParams) (any, error) {
		if _, err := h.KillJob(ctx, p.JobID); err != nil {
			return nil, err
		}
		return protocol.JobsKillResult{}, nil
	}))
}
