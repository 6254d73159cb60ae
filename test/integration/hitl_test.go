package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// approvals answers ui/requestApproval with the next decision and records
// the requests.
type approvals struct {
	mu        sync.Mutex
	decisions []string
	seen      []map[string]any
}

func (a *approvals) install(s *server) {
	s.Handle("ui/requestApproval", func(_ context.Context, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.seen = append(a.seen, p)
		d := "decline"
		if len(a.decisions) > 0 {
			d, a.decisions = a.decisions[0], a.decisions[1:]
		}
		return map[string]any{"decision": d}, nil
	})
}

func (a *approvals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.seen)
}

func writeCall(id, path, content string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "write", Arguments: mustJSON(map[string]any{"path": path, "content": content})}
}

func TestApprovalApproveAndDecline(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"old","newText":"new"}]}`}}},
		{Match: "Successfully", Text: "edited"},
		{Match: "second", ToolCalls: []llmtest.ToolCall{{ID: "e2", Name: "edit", Arguments: `{"path":"a.txt","edits":[{"oldText":"new","newText":"newer"}]}`}}},
		{Match: "declined by the user", Text: "ok, I will not"},
	})
	file := filepath.Join(e.workspace, "a.txt")
	writeFile(t, file, "old text\n")
	s := e.start(startOpt{})
	ap := &approvals{decisions: []string{"approve", "decline"}}
	ap.install(s)

	s.prompt("change old to new")
	s.waitIdle()
	if got := readFile(t, file); got != "new text\n" {
		t.Fatalf("after approve: %q", got)
	}
	s.prompt("second change")
	s.waitIdle()
	if got := readFile(t, file); got != "new text\n" {
		t.Fatalf("declined edit changed the file: %q", got)
	}
	if ap.count() != 2 {
		t.Fatalf("approval requests: %d", ap.count())
	}
	req := ap.seen[0]
	if req["toolName"] != "edit" || req["category"] != "edit" || req["toolCallId"] != "e1" || req["display"] == "" {
		t.Fatalf("approval request: %v", req)
	}
	// The model was told about the decline (the last scripted answer matched it).
	if e.llm.Pending() != 0 {
		t.Fatalf("unused scripted answers: %d", e.llm.Pending())
	}
}

func TestAlwaysAllowCategoryAndDenyBeatsYolo(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{writeCall("w1", "one.txt", "1")}},
		{Match: "w1", Text: "wrote one"},
		{Match: "two please", ToolCalls: []llmtest.ToolCall{writeCall("w2", "two.txt", "2")}},
		{Match: "w2", Text: "wrote two"},
		{Match: "three please", ToolCalls: []llmtest.ToolCall{writeCall("w3", "three.txt", "3")}},
		{Match: "denied by policy", Text: "denied"},
	})
	s := e.start(startOpt{})
	ap := &approvals{decisions: []string{"alwaysAllowCategory"}}
	ap.install(s)
	s.prompt("one please")
	s.waitIdle()
	s.prompt("two please")
	s.waitIdle()
	if ap.count() != 1 {
		t.Fatalf("always-allow-category should stop the next prompt's approval; asked %d times", ap.count())
	}
	if readFile(t, filepath.Join(e.workspace, "two.txt")) != "2" {
		t.Fatal("second write did not run")
	}
	var perms map[string]any
	s.call("permissions/get", nil, &perms)
	if !strings.Contains(mustJSON(perms["grants"]), `"edit"`) {
		t.Fatalf("grant not recorded: %v", perms)
	}
	// A per-tool deny beats YOLO.
	s.call("permissions/set", map[string]any{"tools": map[string]string{"write": "deny"}, "yolo": true}, &perms)
	s.prompt("three please")
	s.waitIdle()
	if readFile(t, filepath.Join(e.workspace, "three.txt")) != "" {
		t.Fatal("denied write ran under YOLO")
	}
	if e.llm.Pending() != 0 {
		t.Fatalf("unused scripted answers: %d", e.llm.Pending())
	}
}

func TestNoApprovalCapabilityDeclines(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{writeCall("w1", "x.txt", "x")}},
		{Match: "cannot approve", Text: "understood"},
	})
	s := e.start(startOpt{caps: map[string]any{}})
	s.prompt("write x")
	s.waitIdle()
	if readFile(t, filepath.Join(e.workspace, "x.txt")) != "" {
		t.Fatal("write ran without approval")
	}
	if e.llm.Pending() != 0 {
		t.Fatal("model was not told why")
	}
}

func TestGarbageApprovalDeclines(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{writeCall("w1", "g.txt", "g")}},
		{Match: "declined", Text: "ok"},
	})
	s := e.start(startOpt{})
	s.Handle("ui/requestApproval", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"decision": "sure-why-not"}, nil
	})
	s.prompt("write g")
	s.waitIdle()
	if readFile(t, filepath.Join(e.workspace, "g.txt")) != "" {
		t.Fatal("garbage answer approved the call")
	}
}

func TestAskUserRoundTripAndAbortWhileWaiting(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "q1", Name: "ask_user", Arguments: `{"question":"Which db?","options":["sqlite","postgres"]}`}}},
		{Match: "postgres", Text: "postgres it is"},
		{Match: "ask again", ToolCalls: []llmtest.ToolCall{{ID: "q2", Name: "ask_user", Arguments: `{"question":"Still there?"}`}}},
	})
	s := e.start(startOpt{})
	var asked atomic.Int32
	block := make(chan struct{})
	s.Handle("ui/askQuestion", func(ctx context.Context, params json.RawMessage) (any, error) {
		n := asked.Add(1)
		if n == 1 {
			if !strings.Contains(string(params), "Which db?") || !strings.Contains(string(params), "sqlite") {
				t.Errorf("question params %s", params)
			}
			return map[string]any{"answer": "postgres"}, nil
		}
		<-block // never answer: the server must not hang on us
		return nil, nil
	})
	defer close(block)
	s.prompt("pick a db")
	s.waitIdle()
	if got := roles(s.entries()); !slices.Equal(got, []string{"user", "assistant:toolUse", "toolResult", "assistant:stop"}) {
		t.Fatalf("roles %v", got)
	}
	s.prompt("ask again")
	s.waitFor("question pending", func() bool {
		v, _ := s.Display()
		return v.State.Pending.Question != nil
	})
	s.call("agent/abort", nil, nil)
	st := s.waitIdle()
	if st.Phase != "idle" {
		t.Fatalf("phase %s", st.Phase)
	}
	got := roles(s.entries())
	if got[len(got)-1] != "toolResult" {
		t.Fatalf("the aborted question has no result: %v", got)
	}
	v, _ := s.Display()
	if v.State.Pending.Question != nil {
		t.Fatal("question still pending after abort")
	}
}

func TestPlanRejectedThenApprovedSwitchesToBuild(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "p1", Name: "submit_plan", Arguments: `{"title":"Add cache","plan":"1. add a map"}`}}},
		{Match: "use an LRU", ToolCalls: []llmtest.ToolCall{{ID: "p2", Name: "submit_plan", Arguments: `{"title":"Add LRU cache","plan":"1. add an LRU"}`}}},
		{Match: "Build mode", ToolCalls: []llmtest.ToolCall{writeCall("w1", "cache.go", "package cache\n")}},
		{Match: "w1", Text: "implemented"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	var plans atomic.Int32
	s.Handle("ui/approvePlan", func(_ context.Context, params json.RawMessage) (any, error) {
		if plans.Add(1) == 1 {
			return map[string]any{"approved": false, "feedback": "use an LRU"}, nil
		}
		return map[string]any{"approved": true}, nil
	})
	var ms map[string]any
	s.call("mode/set", map[string]any{"mode": "plan"}, &ms)
	if ms["mode"] != "plan" {
		t.Fatalf("mode/set: %v", ms)
	}
	s.prompt("plan a cache")
	// The plan run ends, the harness hands over to Build and runs the build.
	s.waitFor("build run finished", func() bool {
		st := s.state()
		return st.Mode == "build" && !st.IsRunning && readFile(t, filepath.Join(e.workspace, "cache.go")) != ""
	})
	reqs := e.llm.Requests()
	planReq, buildReq := string(reqs[0]), string(reqs[len(reqs)-2])
	if strings.Contains(planReq, `"name":"write"`) || !strings.Contains(buildReq, `"name":"write"`) {
		t.Fatal("plan mode offered write, or build mode did not")
	}
}

func TestTasksAndModeModelMemorySurviveRestart(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "task_write", Arguments: `{"tasks":[{"content":"Write tests","status":"in_progress","activeForm":"Writing tests"},{"content":"Ship it","status":"pending"}]}`}}},
		{Match: "t1", Text: "tasks set"},
	})
	s := e.start(startOpt{})
	s.prompt("plan the work")
	st := s.waitIdle()
	var tl struct {
		Tasks []map[string]any `json:"tasks"`
	}
	s.call("tasks/list", nil, &tl)
	if len(tl.Tasks) != 2 || tl.Tasks[0]["status"] != "in_progress" {
		t.Fatalf("tasks: %v", tl.Tasks)
	}
	v, _ := s.Display()
	if len(v.State.Tasks) != 2 {
		t.Fatalf("display tasks: %v", v.State.Tasks)
	}
	// Mode/model memory: build uses m1; plan gets m2; back to build → m1.
	var r map[string]any
	s.call("mode/set", map[string]any{"mode": "plan"}, &r)
	s.call("model/set", map[string]any{"model": "fake/m2"}, &r)
	s.call("mode/set", map[string]any{"mode": "build"}, &r)
	if r["model"] != "fake/m1" {
		t.Fatalf("build mode did not restore m1: %v", r)
	}
	s.call("mode/set", map[string]any{"mode": "plan"}, &r)
	if r["model"] != "fake/m2" {
		t.Fatalf("plan mode did not restore m2: %v", r)
	}
	s.call("thinking/set", map[string]any{"level": "high"}, &r)
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)

	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": st.Path}, nil)
	s2.call("tasks/list", nil, &tl)
	if len(tl.Tasks) != 2 || tl.Tasks[1]["content"] != "Ship it" {
		t.Fatalf("tasks after restart: %v", tl.Tasks)
	}
	st2 := s2.state()
	if st2.Mode != "plan" || st2.Model != "fake/m2" || st2.ThinkingLevel != "high" {
		t.Fatalf("state after restart: %+v", st2)
	}
	s2.call("mode/set", map[string]any{"mode": "build"}, &r)
	if r["model"] != "fake/m1" {
		t.Fatalf("per-mode model lost across restart: %v", r)
	}
}

func TestSecretNeverCrossesTheWire(t *testing.T) {
	const secret = "sk-live-9f8e7d6c5b4a39281706"
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"echo key=$MY_SERVICE_API_KEY"}`}}},
		{Match: secret, Text: "I saw the key and will not repeat it."},
	})
	s := e.start(startOpt{args: []string{"--yolo"}, extraEnv: []string{"MY_SERVICE_API_KEY=" + secret},
		caps: map[string]any{"ui": map[string]any{"approvals": true}, "harnessEvents": true}})
	s.prompt("print the key")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatal("the model did not get the real value")
	}
	all := s.allNotifications()
	if strings.Contains(all, secret) {
		t.Fatal("the secret crossed the wire to the editor")
	}
	if !strings.Contains(all, "••••••") {
		t.Fatal("no masked value in the notifications")
	}
	var snap map[string]any
	s.call("display/snapshot", nil, &snap)
	var ents map[string]any
	s.call("session/export", map[string]any{"format": "markdown"}, &ents)
	if strings.Contains(mustJSON(snap), secret) || strings.Contains(mustJSON(ents), secret) {
		t.Fatal("the secret is in a snapshot or an export")
	}
}

func TestModesFromConfig(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	modes := filepath.Join(e.home, "modes.json")
	writeFile(t, modes, `[{"id":"review","name":"Review","color":"#9c27b0","readOnly":true,"tools":["read","grep"]}]`)
	s := e.start(startOpt{extraEnv: []string{"PI_LSP_MODES=" + modes}})
	var ml struct {
		Modes []map[string]any `json:"modes"`
	}
	s.call("mode/list", nil, &ml)
	if len(ml.Modes) != 4 || ml.Modes[3]["id"] != "review" || ml.Modes[3]["color"] != "#9c27b0" {
		t.Fatalf("modes: %v", ml.Modes)
	}
	s.call("mode/set", map[string]any{"mode": "review"}, nil)
	s.prompt("look around")
	s.waitIdle()
	req := string(e.llm.Requests()[0])
	if !strings.Contains(req, `"name":"grep"`) || strings.Contains(req, `"name":"ls"`) || strings.Contains(req, `"name":"write"`) {
		t.Fatal("the review mode's tool list was not applied")
	}
}
