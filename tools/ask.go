package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

const askSchema = `{"type":"object","properties":{` +
	`"question":{"type":"string","description":"The question to ask the user. Should be clear and specific."},` +
	`"options":{"type":"array","items":{"type":"string"},"description":"Optional choices (2-4 short options). If omitted, the user answers in free text."},` +
	`"selectionMode":{"type":"string","enum":["single","multi"],"description":"Whether the user picks one option or several (default: single)"}},` +
	`"required":["question"]}`

func askUserTool() Tool {
	return newTool("ask_user",
		"Ask the user a question and wait for their answer. Use this when you need clarification, want to validate an assumption, or need the user to decide between options. Provide options for structured choices, or omit them for an open-ended question.",
		CategoryOther, askSchema, runAskUser)
}

type askArgs struct {
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	SelectionMode string   `json:"selectionMode"`
}

func runAskUser(ctx context.Context, call Call, x Exec) Result {
	var a askArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs("ask_user", err)
	}
	a.Question = strings.TrimSpace(a.Question)
	if a.Question == "" {
		return errorResult("ask_user: question is required")
	}
	switch a.SelectionMode {
	case "":
		if len(a.Options) > 0 {
			a.SelectionMode = "single"
		}
	case "single", "multi":
		if len(a.Options) == 0 {
			return errorResult("ask_user: selectionMode needs options")
		}
	default:
		return errorResult(fmt.Sprintf("ask_user: selectionMode must be \"single\" or \"multi\", got %q", a.SelectionMode))
	}
	q := Question{ID: call.ID, Question: a.Question, Options: a.Options, SelectionMode: a.SelectionMode}
	if x.Host == nil {
		return askFallback(q)
	}
	answer, err := x.Host.Ask(ctx, q)
	switch {
	case err == nil:
		res := textResult("User answered: " + answer)
		res.Display = a.Question + "\n→ " + answer
		return res
	case errors.Is(err, ErrNoUI):
		return askFallback(q)
	case ctx.Err() != nil, errors.Is(err, context.Canceled):
		return errorResult("aborted")
	default:
		return errorResult(fmt.Sprintf("ask_user failed: %v", err))
	}
}

// askFallback is the plain-text path for runs where nobody can answer: the
// question is kept in the transcript and the model is told to go on.
func askFallback(q Question) Result {
	var b strings.Builder
	b.WriteString("[Question for user]: " + q.Question)
	if len(q.Options) > 0 {
		b.WriteString("\nOptions: " + strings.Join(q.Options, ", "))
	}
	b.WriteString("\n\nThe user cannot answer interactively in this session. Do not wait for an answer: " +
		"state the assumption you are making and proceed with it, or, if you cannot proceed safely, " +
		"ask this question in your final message.")
	return textResult(b.String())
}
