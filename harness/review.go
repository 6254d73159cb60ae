package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/pi-lsp/pi-lsp/tools"
)

// ApprovalReply is the user's full answer to an approval request: the
// decision, and optionally the content of an edit or write as the user
// accepted it, or the reason for a decline.
type ApprovalReply struct {
	Decision Decision
	// Content, with an allowing decision, is the whole file as the user
	// accepted it (hunks rejected, or edited). nil: the call as proposed.
	Content *string
	// BadContent says why a content field could not be used ("" = none
	// or fine); the call is then declined.
	BadContent string
	// Feedback, with a decline, is the user's reason; the model gets it.
	Feedback string
}

// ReviewUI is a UI that can answer approvals with content or feedback.
// A UI without it answers with a bare Decision.
type ReviewUI interface {
	RequestReview(ctx context.Context, req ApprovalRequest) (ApprovalReply, error)
}

// askApproval asks ui, through RequestReview when it has it.
func askApproval(ctx context.Context, ui UI, req ApprovalRequest) (ApprovalReply, error) {
	if r, ok := ui.(ReviewUI); ok {
		return r.RequestReview(ctx, req)
	}
	d, err := ui.RequestApproval(ctx, req)
	return ApprovalReply{Decision: d}, err
}

// previewFor computes the preview of an edit or write call for its approval
// request, masked as the wire would mask it. failure is set instead when
// the edit cannot apply as it stands: the call fails with it, unasked.
func (h *Harness) previewFor(ctx context.Context, call tools.Call) (preview *tools.Preview, failure string) {
	if !tools.Reviewable(call.Name) {
		return nil, ""
	}
	p, failure, ok := tools.CheckCall(ctx, h.cfg.Env, call)
	if !ok || failure != "" {
		return nil, failure
	}
	p = p.Mask(h.redact)
	return &p, ""
}

// reviewed checks a reply's content against the request: it returns the
// content to write, or the refusal the model gets instead.
func reviewed(call tools.Call, req ApprovalRequest, r ApprovalReply) (*tools.Reviewed, *refusal) {
	if r.BadContent == "" && r.Content == nil {
		return nil, nil
	}
	reason := r.BadContent
	switch {
	case reason != "":
	case !tools.Reviewable(call.Name):
		reason = fmt.Sprintf("content was sent for %s, which is not an edit or a write", call.Name)
	case req.Preview == nil:
		reason = "the call had no preview to review (its edit would not apply)"
	case req.Preview.Cut:
		reason = "the preview was cut (" + req.Preview.CutReason + "), so it cannot be answered with content"
	}
	if reason != "" {
		return nil, declined(fmt.Sprintf("Tool call declined: the editor's approval could not be used (%s). %s was not run; nothing was written. Tell the user and ask how to proceed.", reason, call.Name),
			"the editor's approval could not be used ("+reason+")")
	}
	return &tools.Reviewed{Before: req.Preview.Before, After: req.Preview.After, Content: *r.Content}, nil
}

// declineText is what the model gets when the user declined a call.
func declineText(name, feedback string) string {
	feedback = strings.TrimSpace(feedback)
	if feedback == "" {
		return fmt.Sprintf("Tool call declined by the user: %s was not run. Do not retry the same call; ask the user what they want instead.", name)
	}
	return fmt.Sprintf("Tool call declined by the user: %s was not run. The user's reason: %s\nTake this into account; do not retry the same call unchanged.", name, feedback)
}
