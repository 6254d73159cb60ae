package tools

import (
	"context"
	"strings"
)

// GoalDoneToolName is the name of the tool the model calls when it judges
// the session's goal met (goals without a check command).
const GoalDoneToolName = "goal_done"

const goalDoneSchema = `{"type":"object","properties":{` +
	`"evidence":{"type":"string","description":"What shows the goal is met: the commands run and their results, the files changed"}},` +
	`"required":["evidence"]}`

// GoalHost is the part of the back channel goal_done uses. The harness's
// Host implements it; a Host without it (a subagent's, a headless test's)
// gets the plain-text answer that no goal is active.
type GoalHost interface {
	// GoalDone records that the model says the active goal is met, with its
	// evidence. It fails when no goal is active.
	GoalDone(ctx context.Context, evidence string) error
}

// GoalDone is the goal_done tool. The harness offers it only while a goal
// is active (it is not among Builtins).
func GoalDone() Tool {
	return newTool(GoalDoneToolName,
		"Report that the session's goal is met, with the evidence. Call it only once the goal is really done (tests pass, the feature works). The harness ends the goal when this run ends; without this call it keeps starting runs toward the goal.",
		CategoryOther, goalDoneSchema, runGoalDone)
}

type goalDoneArgs struct {
	Evidence string `json:"evidence"`
}

func runGoalDone(ctx context.Context, call Call, x Exec) Result {
	var a goalDoneArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs(GoalDoneToolName, err)
	}
	if strings.TrimSpace(a.Evidence) == "" {
		return errorResult("goal_done: evidence is required: say what shows the goal is met")
	}
	gh, ok := x.Host.(GoalHost)
	if !ok {
		return errorResult("goal_done: no goal is active")
	}
	if err := gh.GoalDone(ctx, a.Evidence); err != nil {
		return errorResult("goal_done: " + err.Error())
	}
	res := textResult("Goal marked as met. The goal ends when this run ends; finish your answer.")
	res.Display = "Goal done: " + truncateRunes(a.Evidence, 200)
	return res
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
