package integration

import (
	"math"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// costs is the session and last-turn cost as session/state and the display
// carry them.
type costs struct {
	Cost, TurnCost struct{ Input, Output, CacheRead, Total float64 }
}

func stateCosts(t *testing.T, s *server) costs {
	t.Helper()
	var st struct {
		Tokens costs `json:"tokens"`
	}
	s.call("session/state", nil, &st)
	return st.Tokens
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestCostSurvivesResume: the session cost (models.json prices × each
// turn's usage) is the whole session's after the session is reopened, in
// another process (initializationOptions.session) and by session/open in the
// same one, in session/state and in the display: every turn's, also those
// on a branch the leaf moved away from, as the live total counts them. The
// turn cost is that of the last turn on the branch, and turns after the
// resume add to the session's.
func TestCostSurvivesResume(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "first", Text: "one", Usage: &llmtest.Usage{Prompt: 1200, Completion: 300}},
		{Match: "second", Text: "two", Usage: &llmtest.Usage{Prompt: 2500, Completion: 80, Cached: 1000}},
		{Match: "third", Text: "three", Usage: &llmtest.Usage{Prompt: 3100, Completion: 40}},
	}, llmtest.ModelSpec{ID: "m1", Name: "M1", Cost: &llmtest.Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}})
	// Per million tokens; a cached prompt token is billed as a cache read.
	price := func(prompt, completion, cached int) float64 {
		return (3*float64(prompt-cached) + 15*float64(completion) + 0.3*float64(cached)) / 1e6
	}
	turn1, turn2, turn3 := price(1200, 300, 0), price(2500, 80, 1000), price(3100, 40, 0)

	s := e.start(startOpt{})
	s.prompt("first question")
	s.waitIdle()
	s.prompt("second question")
	s.waitIdle()
	live := stateCosts(t, s)
	if !near(live.Cost.Total, turn1+turn2) || !near(live.TurnCost.Total, turn2) {
		t.Fatalf("live cost %+v, want total %.6f and turn %.6f", live, turn1+turn2, turn2)
	}
	// Back to before the second question: the second turn leaves the
	// context but not the session's cost, live or after a resume.
	secondUser := ""
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(mustJSON(m["content"]), "second question") {
			secondUser = en["id"].(string)
		}
	}
	s.call("session/navigate", map[string]any{"targetId": secondUser}, nil)
	// The session's cost stays; the turn cost is the last turn's on the
	// branch now current, as a resume at that leaf shows it (below).
	if c := stateCosts(t, s); c.Cost != live.Cost || !near(c.TurnCost.Total, turn1) {
		t.Fatalf("live cost after navigating away from the second turn %+v, before %+v (turn cost %.6f wanted)", c, live, turn1)
	}
	var st struct{ Path string }
	s.call("session/state", nil, &st)
	// Let go of the session so that another process can open it.
	s.call("session/new", nil, nil)
	if c := stateCosts(t, s); c.Cost.Total != 0 {
		t.Fatalf("a new session starts at no cost: %+v", c)
	}

	// Another process resumes it: the cost is what it was.
	s2 := e.start(startOpt{initOpts: map[string]any{"session": st.Path}})
	got := stateCosts(t, s2)
	// The turn cost is that of the last turn on the branch resumed.
	if got.Cost != live.Cost || !near(got.TurnCost.Total, turn1) {
		t.Fatalf("cost after resume %+v, live it was %+v (turn cost %.6f wanted)", got, live, turn1)
	}
	s2.waitFor("the resumed display with its cost", func() bool {
		v, _ := s2.Display()
		return near(v.State.Tokens.Cost.Total, turn1+turn2)
	})
	// A turn after the resume adds to the session's cost.
	s2.prompt("third question")
	s2.waitIdle()
	got = stateCosts(t, s2)
	if !near(got.Cost.Total, turn1+turn2+turn3) || !near(got.TurnCost.Total, turn3) {
		t.Fatalf("cost after a turn on the resumed session %+v, want total %.6f", got, turn1+turn2+turn3)
	}
	s2.call("session/new", nil, nil)

	// session/open in the first process sees all three turns.
	s.call("session/open", map[string]any{"path": st.Path}, nil)
	got = stateCosts(t, s)
	if !near(got.Cost.Total, turn1+turn2+turn3) || !near(got.Cost.Input, 3*float64(1200+1500+3100)/1e6) ||
		!near(got.Cost.CacheRead, 0.3*1000/1e6) || !near(got.TurnCost.Total, turn3) {
		t.Fatalf("cost after session/open %+v", got)
	}
	s.waitFor("the display cost after session/open", func() bool {
		v, _ := s.Display()
		return near(v.State.Tokens.Cost.Total, turn1+turn2+turn3) && near(v.State.Tokens.TurnCost.Total, turn3)
	})
}
