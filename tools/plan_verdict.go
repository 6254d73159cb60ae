package tools

import "strings"

// The first words of submit_plan's results (runSubmitPlan).
const (
	planApprovedText = "Plan approved by the user."
	planRejectedText = "Plan was not approved."
)

// Plan verdicts as PlanVerdictOf names them.
const (
	PlanApproved = "approved"
	PlanRejected = "rejected"
)

// PlanVerdictOf reads a submit_plan result's text: approved, rejected, or
// "" when the plan was never judged (no approver, an error, an abort).
func PlanVerdictOf(text string) string {
	switch {
	case strings.HasPrefix(text, planApprovedText):
		return PlanApproved
	case strings.HasPrefix(text, planRejectedText):
		return PlanRejected
	}
	return ""
}
