package server

import (
	"context"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// The hub is the harness's UI: every question goes to each client that
// declared it can answer it; the first answer decides (attach.FanOut).

func (hb *hub) RequestApproval(ctx context.Context, req harness.ApprovalRequest) (harness.Decision, error) {
	return fanOut(ctx, hb, "ui/requestApproval", "approval", req.ToolCallID, func(ctx context.Context, u clientUI) (harness.Decision, error) {
		return u.RequestApproval(ctx, req)
	})
}

func (hb *hub) AskQuestion(ctx context.Context, q tools.Question) (string, error) {
	return fanOut(ctx, hb, "ui/askQuestion", "question", q.ID, func(ctx context.Context, u clientUI) (string, error) {
		return u.AskQuestion(ctx, q)
	})
}

func (hb *hub) ApprovePlan(ctx context.Context, p tools.Plan) (tools.PlanVerdict, error) {
	return fanOut(ctx, hb, "ui/approvePlan", "plan", p.ID, func(ctx context.Context, u clientUI) (tools.PlanVerdict, error) {
		return u.ApprovePlan(ctx, p)
	})
}

var _ harness.ReviewUI = (*hub)(nil)

// RequestReview is RequestApproval with the whole answer (content,
// feedback), asked of every client.
func (hb *hub) RequestReview(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalReply, error) {
	return fanOut(ctx, hb, "ui/requestApproval", "approval", req.ToolCallID, func(ctx context.Context, u clientUI) (harness.ApprovalReply, error) {
		return u.RequestReview(ctx, req)
	})
}

// fanOut asks every client of hb that declared method (attach.FanOut),
// each through the clientUI conversion.
func fanOut[T any](ctx context.Context, hb *hub, method, kind, id string, ask func(context.Context, clientUI) (T, error)) (T, error) {
	return attach.FanOut(ctx, hb.Capable(method), method, kind, id, func(ctx context.Context, c attach.Caller) (T, error) {
		return ask(ctx, clientUI{c})
	})
}
