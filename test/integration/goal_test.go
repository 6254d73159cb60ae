package integration

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// goalView is the wire's goal (session/state, display state, goal/set).
type goalView struct {
	Text     string  `json:"text"`
	Check    string  `json:"check"`
	Turns    int     `json:"turns"`
	MaxTurns int     `json:"maxTurns"`
	CostUSD  float64 `json:"costUsd"`
	Status   string  `json:"status"`
	Reason   string  `json:"reason"`
}

// goal is session/state's goal (nil when none).
func (s *server) goal() *goalView {
	s.t.Helper()
	var st struct {
		Goal *goalView `json:"goal"`
	}
	s.call("session/state", nil, &st)
	return st.Goal
}

// waitGoalEnd waits until the goal is no longer active and the harness is
// idle, and returns it.
func (s *server) waitGoalEnd() goalView {
	s.t.Helper()
	var g *goalView
	s.waitFor("the goal to end", func() bool {
		g = s.goal()
		return g != nil && g.Status != "active" && !s.state().IsRunning
	})
	s.waitIdle()
	return *s.goal()
}

// countingCheck is a check that passes on its nth invocation: it counts
// its runs in a file of the workspace and prints the attempt.
func countingCheck(n int) string {
	return `c=$(cat .goal-count 2>/dev/null || echo 0); c=$((c+1)); echo $c > .goal-count; echo "attempt $c of the check"; [ $c -ge ` + string(rune('0'+n)) + ` ]`
}

// TestGoalCheckPassesOnThirdRun: a goal whose check passes on its third
// invocation runs exactly three runs by itself and ends met; every run's
// prompt carries the goal's text, the later ones the check's output. The
// display state and session/state show the goal; its start and end are
// recorded, and a reopened session shows it without resuming it.
func TestGoalCheckPassesOnThirdRun(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "working on it", Repeat: true}})
	s := e.start(startOpt{args: []string{"--yolo"}})
	var res struct {
		Goal goalView `json:"goal"`
	}
	s.call("goal/set", map[string]any{"text": "make the widget tests pass", "check": countingCheck(3), "maxTurns": 5}, &res)
	if res.Goal.Status != "active" || res.Goal.Turns != 1 || res.Goal.MaxTurns != 5 {
		t.Fatalf("goal/set: %+v", res.Goal)
	}
	g := s.waitGoalEnd()
	if g.Status != "met" || g.Turns != 3 {
		t.Fatalf("goal: %+v", g)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if !strings.Contains(string(r), "make the widget tests pass") {
			t.Errorf("request %d lacks the goal's text", i+1)
		}
	}
	if !strings.Contains(string(reqs[1]), "Continue working toward the goal: make the widget tests pass") || !strings.Contains(string(reqs[1]), "attempt 1 of the check") {
		t.Errorf("the second run's prompt lacks the continuation or the check's output:\n%.3000s", reqs[1])
	}
	if !strings.Contains(string(reqs[2]), "attempt 2 of the check") {
		t.Errorf("the third run's prompt lacks the second check's output")
	}
	if c := strings.TrimSpace(readFile(t, filepath.Join(e.workspace, ".goal-count"))); c != "3" {
		t.Errorf("the check ran %s times, want 3", c)
	}
	// The display state carries the goal.
	var snap struct {
		State struct {
			Goal *goalView `json:"goal"`
		} `json:"state"`
	}
	s.call("display/snapshot", nil, &snap)
	if snap.State.Goal == nil || snap.State.Goal.Status != "met" || snap.State.Goal.Turns != 3 {
		t.Fatalf("display state goal: %+v", snap.State.Goal)
	}
	var kinds []string
	for _, en := range s.entries() {
		if en["type"] == "custom" && en["customType"] == "pi-lsp/goal" {
			d := en["data"].(map[string]any)
			kinds = append(kinds, d["event"].(string)+":"+d["goal"].(map[string]any)["status"].(string))
		}
	}
	if strings.Join(kinds, ",") != "start:active,end:met" {
		t.Fatalf("goal entries: %v", kinds)
	}
	path := s.state().Path
	_ = s.Close()

	// A reopened session shows the goal; nothing runs.
	s2 := e.start(startOpt{args: []string{"--yolo"}})
	s2.call("session/open", map[string]any{"path": path}, nil)
	if g := s2.goal(); g == nil || g.Status != "met" || g.Text != "make the widget tests pass" {
		t.Fatalf("reopened goal: %+v", g)
	}
	if n := len(e.llm.Requests()); n != 3 {
		t.Fatalf("the reopened session ran: %d requests", n)
	}
}

// TestGoalExhaustedAtMaxTurns: a goal whose check never passes stops after
// maxTurns runs as exhausted, with a notice naming it and saying why.
func TestGoalExhaustedAtMaxTurns(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "still trying", Repeat: true}})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.call("goal/set", map[string]any{"text": "reach the unreachable", "check": "echo nope; exit 1", "maxTurns": 2}, nil)
	g := s.waitGoalEnd()
	if g.Status != "exhausted" || g.Turns != 2 || !strings.Contains(g.Reason, "maxTurns") {
		t.Fatalf("goal: %+v", g)
	}
	if n := len(e.llm.Requests()); n != 2 {
		t.Fatalf("%d model requests, want 2", n)
	}
	var snap struct {
		State struct {
			Items []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"items"`
		} `json:"state"`
	}
	s.call("display/snapshot", nil, &snap)
	found := false
	for _, it := range snap.State.Items {
		found = found || (it.Kind == "info" && strings.Contains(it.Text, "reach the unreachable") && strings.Contains(it.Text, "maxTurns"))
	}
	if !found {
		t.Fatalf("no notice item naming the goal: %+v", snap.State.Items)
	}
}

// TestGoalAbortStopsIt: agent/abort during a goal's check kills the check
// and stops the goal; no further run starts.
func TestGoalAbortStopsIt(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "trying", Repeat: true}})
	s := e.start(startOpt{args: []string{"--yolo"}})
	started := filepath.Join(e.workspace, "check-started")
	s.call("goal/set", map[string]any{"text": "never done", "check": "touch check-started; sleep 60; exit 1"}, nil)
	s.waitFor("the check to start", func() bool { _, err := os.Stat(started); return err == nil })
	s.call("agent/abort", map[string]any{}, nil)
	g := s.waitGoalEnd()
	if g.Status != "stopped" || g.Turns != 1 {
		t.Fatalf("goal: %+v", g)
	}
	if n := len(e.llm.Requests()); n != 1 {
		t.Fatalf("%d model requests after the abort, want 1", n)
	}
	// goal/clear of a stopped goal changes nothing; a new goal replaces it.
	var cl struct {
		Goal *goalView `json:"goal"`
	}
	s.call("goal/clear", map[string]any{}, &cl)
	if cl.Goal == nil || cl.Goal.Status != "stopped" {
		t.Fatalf("goal/clear: %+v", cl.Goal)
	}
}

// TestGoalDoneWithoutCheck: without a check the goal is met when the model
// calls goal_done, which is offered only while a goal is active. A Stop
// hook sees the active goal on its stdin, and its block (exit 2) keeps the
// run going with its stderr.
func TestGoalDoneWithoutCheck(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "plain question", Text: "plain answer"},
		{Match: "Goal: write the release notes", Text: "drafted"},
		{Match: "Stop hook: check the changelog too", ToolCalls: []llmtest.ToolCall{{ID: "g1", Name: "goal_done", Arguments: `{"evidence":"NOTES.md written"}`}}},
		{Match: "Goal marked as met", Text: "done"},
	})
	stdin := filepath.Join(t.TempDir(), "stop-stdin")
	marker := filepath.Join(t.TempDir(), "blocked-once")
	e.userSettings(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >> ` + stdin + `; echo >> ` + stdin + `; if [ ! -e ` + marker + ` ] && grep -q '\"goal_active\":true' ` + stdin + `; then touch ` + marker + `; echo 'check the changelog too' >&2; exit 2; fi"}]}]}}`)
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("plain question")
	s.waitIdle()
	if strings.Contains(string(e.llm.Requests()[0]), `"goal_done"`) {
		t.Fatal("goal_done was offered without a goal")
	}
	s.call("goal/set", map[string]any{"text": "write the release notes"}, nil)
	g := s.waitGoalEnd()
	if g.Status != "met" || g.Turns != 1 || !strings.Contains(g.Reason, "NOTES.md written") {
		t.Fatalf("goal: %+v", g)
	}
	if e.llm.Pending() != 0 {
		t.Fatalf("%d scripted answers unused", e.llm.Pending())
	}
	if !strings.Contains(string(e.llm.Requests()[1]), `"goal_done"`) {
		t.Fatal("goal_done was not offered during the goal")
	}
	in := readFile(t, stdin)
	if !strings.Contains(in, `"goal_active":false`) || !strings.Contains(in, `"goal_active":true`) || !strings.Contains(in, `"text":"write the release notes"`) {
		t.Fatalf("Stop hook stdin: %s", in)
	}
}

// TestGoalBadBudgets: negative or absurd budgets and an empty text are
// -32602; the server keeps serving and no run starts.
func TestGoalBadBudgets(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "x", Repeat: true}})
	s := e.start(startOpt{})
	for _, p := range []map[string]any{
		{"text": "t", "maxTurns": -1},
		{"text": "t", "maxTurns": 0},
		{"text": "t", "maxTurns": 100000},
		{"text": "t", "maxCostUsd": -2.5},
		{"text": "t", "maxCostUsd": 0},
		{"text": "t", "maxCostUsd": 1e12},
		{"text": "  "},
		{"text": "t", "maxTurns": "many"},
	} {
		err := s.try("goal/set", p, nil)
		var re *rpctest.Error
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("goal/set %s: %v, want -32602", mustJSON(p), err)
		}
	}
	if g := s.goal(); g != nil {
		t.Fatalf("a refused goal was set: %+v", g)
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
}

// TestExecGoalExitCodes: pi-lsp exec --goal exits 0 when the goal is met
// and 1 when it is exhausted.
func TestExecGoalExitCodes(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "on it", Repeat: true}})
	_, errOut, code := e.exec("--goal", "pass on the second try", "--check", countingCheck(2), "--max-turns", "4")
	if code != 0 || !strings.Contains(errOut, "goal met after 2 run(s)") {
		t.Fatalf("met: exit %d, stderr:\n%s", code, errOut)
	}
	_, errOut, code = e.exec("--goal", "never", "--check", "false", "--max-turns", "2")
	if code != 1 || !strings.Contains(errOut, "goal exhausted after 2 run(s)") {
		t.Fatalf("exhausted: exit %d, stderr:\n%s", code, errOut)
	}
	_, errOut, code = e.exec("--goal", "x", "--max-turns", "-3")
	if code != 2 {
		t.Fatalf("bad budget: exit %d, stderr:\n%s", code, errOut)
	}
	if n := len(e.llm.Requests()); n != 4 {
		t.Fatalf("%d model requests, want 4", n)
	}
}
