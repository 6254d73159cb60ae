package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// goalCommand is the /goal available command.
var goalCommand = sdk.AvailableCommand{Name: "goal", Description: "Keep working until a goal is met: /goal <text> [--check \"cmd\"] [--max-turns N]; /goal clear stops it",
	Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: `text [--check "cmd"] [--max-turns N]`}}}

// runGoalCommand runs /goal's argument: "clear" (or "stop") stops the
// goal, nothing shows it, anything else sets one.
func (s *sess) runGoalCommand(ctx context.Context, arg string) (string, error) {
	switch arg {
	case "":
		if g := s.h.CurrentGoal(); g != nil {
			return goalLine(*g), nil
		}
		return `No goal. Set one with /goal <text> [--check "cmd"] [--max-turns N].`, nil
	case "clear", "stop":
		if g := s.h.ClearGoal(ctx); g != nil {
			return goalLine(*g), nil
		}
		return "No goal.", nil
	}
	spec, err := ParseGoalCommand(arg)
	if err != nil {
		return "", err
	}
	g, err := s.h.SetGoal(ctx, spec)
	if err != nil {
		return "", err
	}
	return goalLine(g), nil
}

// goalLine says where a goal stands in one line.
func goalLine(g harness.Goal) string {
	line := fmt.Sprintf("Goal (%s, run %d/%d", g.Status, g.Turns, g.MaxTurns)
	if g.CostUSD > 0 {
		line += fmt.Sprintf(", $%.4f", g.CostUSD)
	}
	line += "): " + g.Text
	if g.Reason != "" {
		line += " — " + g.Reason
	}
	return line
}

// planWithGoal is the plan update of the task list, with the goal as its
// first entry while the session has one.
func planWithGoal(ts []tools.Task, g *harness.Goal) sdk.SessionUpdate {
	u := planUpdate(ts)
	if g == nil || u.Plan == nil {
		return u
	}
	st := sdk.PlanEntryStatusInProgress
	if g.Status != harness.GoalActive {
		st = sdk.PlanEntryStatusCompleted
	}
	u.Plan.Entries = append([]sdk.PlanEntry{{Content: goalLine(*g), Status: st, Priority: sdk.PlanEntryPriorityHigh}}, u.Plan.Entries...)
	return u
}

// ParseGoalCommand reads /goal's argument: the goal's text, with the
// options --check "cmd", --max-turns N and --max-cost USD anywhere in it
// (values quoted with "…" or '…' when they hold spaces).
func ParseGoalCommand(arg string) (harness.GoalSpec, error) {
	words, err := splitWords(arg)
	if err != nil {
		return harness.GoalSpec{}, err
	}
	var spec harness.GoalSpec
	var text []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, val, hasVal := strings.Cut(w.text, "=")
		if w.quoted || !strings.HasPrefix(name, "--") {
			text = append(text, w.text)
			continue
		}
		if !hasVal {
			if i+1 >= len(words) {
				return spec, fmt.Errorf("%s needs a value", name)
			}
			i++
			val = words[i].text
		}
		switch name {
		case "--check":
			spec.Check = val
		case "--max-turns":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return spec, fmt.Errorf("--max-turns %q: want a whole number of runs, at least 1", val)
			}
			spec.MaxTurns = n
		case "--max-cost":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f <= 0 {
				return spec, fmt.Errorf("--max-cost %q: want a cost in USD, more than 0", val)
			}
			spec.MaxCostUSD = f
		default:
			return spec, fmt.Errorf("unknown option %s (want --check, --max-turns or --max-cost)", name)
		}
	}
	spec.Text = strings.Join(text, " ")
	if spec.Text == "" {
		return spec, errors.New(`the goal's text is missing: /goal <text> [--check "cmd"] [--max-turns N]`)
	}
	return spec, nil
}

type word struct {
	text   string
	quoted bool
}

// splitWords splits s at spaces, keeping "…" and '…' together.
func splitWords(s string) ([]word, error) {
	var out []word
	var cur strings.Builder
	in, quote, quoted := false, rune(0), false
	flush := func() {
		if in {
			out = append(out, word{cur.String(), quoted})
		}
		cur.Reset()
		in, quoted = false, false
	}
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
			quoted = quoted || cur.Len() == 0
		case r == ' ' || r == '\t' || r == '\n':
			flush()
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	flush()
	return out, nil
}
