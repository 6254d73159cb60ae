package server

import (
	"context"
	"github.com/pi-lsp/pi-lsp/rpc"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// registerGoal registers goal/set and goal/clear.
func (a *agent) registerGoal(s *rpc.Server) {
	s.Register("goal/set", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.GoalSetParams) (any, error) {
		spec := harness.GoalSpec{Text: p.Text, Check: p.Check}
		if p.MaxTurns != nil {
			if *p.MaxTurns < 1 {
				return nil, rpc.ErrInvalidParams("maxTurns must be at least 1")
			}
			spec.MaxTurns = *p.MaxTurns
		}
		if p.MaxCostUSD != nil {
			if *p.MaxCostUSD <= 0 {
				return nil, rpc.ErrInvalidParams("maxCostUsd must be more than 0")
			}
			spec.MaxCostUSD = *p.MaxCostUSD
		}
		g, err := h.SetGoal(ctx, spec)
		if err != nil {
			return nil, err
		}
		return protocol.GoalSetResult{Goal: *display.WireGoal(&g)}, nil
	}))
	s.Register("goal/clear", handle(a, func(ctx context.Context, h *harness.Harness, _ protocol.GoalClearParams) (any, error) {
		return protocol.GoalClearResult{Goal: display.WireGoal(h.ClearGoal(ctx))}, nil
	}))
}
