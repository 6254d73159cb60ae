package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

const planSchema = `{"type":"object","properties":{` +
	`"title":{"type":"string","description":"Short title for the plan (e.g. 'Add dark mode toggle')"},` +
	`"plan":{"type":"string","description":"The full plan in markdown. Should include Overview, Steps, and Verification sections."}},` +
	`"required":["title","plan"]}`

const defaultPlanTitle = "Implementation Plan"

func submitPlanTool() Tool {
	return newTool("submit_plan",
		"Submit a completed implementation plan for the user's review. The user can approve it or reject it with feedback. Use this when your exploration is complete and you have a concrete plan ready. On approval you may start implementing.",
		CategoryOther, planSchema, runSubmitPlan)
}

type planArgs struct {
	Title string `json:"title"`
	Plan  string `json:"plan"`
}

func runSubmitPlan(ctx context.Context, call Call, x Exec) Result {
	var a planArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("submit_plan", err)
	}
	if strings.TrimSpace(a.Plan) == "" {
		return errorResult("submit_plan: plan is required")
	}
	if strings.TrimSpace(a.Title) == "" {
		a.Title = defaultPlanTitle
	}
	p := Plan{ID: call.ID, Title: a.Title, Plan: a.Plan}
	if x.Host == nil {
		return planFallback(p)
	}
	v, err := x.Host.SubmitPlan(ctx, p)
	switch {
	case err == nil && v.Approved:
		res := textResult(planApprovedText + " Proceed with the implementation, following the approved plan.")
		res.Display = "Plan approved: " + p.Title
		return res
	case err == nil:
		text := planRejectedText + " The user wants revisions."
		if f := strings.TrimSpace(v.Feedback); f != "" {
			text += "\n\nUser feedback: " + f
		}
		text += "\n\nPlease revise the plan based on the feedback and submit again with submit_plan."
		return textResult(text)
	case errors.Is(err, ErrNoUI):
		return planFallback(p)
	case ctx.Err() != nil, errors.Is(err, context.Canceled):
		return errorResult("aborted")
	default:
		return errorResult(fmt.Sprintf("Failed to submit plan: %v", err))
	}
}

// planFallback is the plain-text path when nobody can approve: the plan stays
// in the transcript, and the model keeps to read-only work.
func planFallback(p Plan) Result {
	return textResult(fmt.Sprintf("[Plan submitted for review]\n\nTitle: %s\n\n%s\n\n"+
		"No interactive approval is available in this session, so the plan is NOT approved yet. "+
		"Do not start changing files: stay in read-only planning, present the plan in your final message, "+
		"and wait for the user to approve it.", p.Title, p.Plan))
}
