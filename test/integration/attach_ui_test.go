package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// startNamed starts pi-lsp serve whose client is called name.
func (e *env) startNamed(name string, o startOpt) *server {
	e.t.Helper()
	s := e.spawn(o)
	params := map[string]any{
		"processId": 0, "clientInfo": map[string]any{"name": name},
		"rootUri":      "file://" + s.cmd.Dir,
		"capabilities": map[string]any{"ui": map[string]any{"approvals": true, "questions": true, "planApproval": true}},
	}
	if o.initOpts != nil {
		params["initializationOptions"] = o.initOpts
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.Initialize(ctx, params)
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	s.init = res
	return s
}

type resolved struct {
	RequestID string          `json:"requestId"`
	Kind      string          `json:"kind"`
	Outcome   json.RawMessage `json:"outcome"`
	By        string          `json:"by"`
}

func resolvedOf(s *server) []resolved {
	var out []resolved
	for _, n := range s.Notifications("ui/resolved") {
		var r resolved
		_ = json.Unmarshal(n.Params, &r)
		out = append(out, r)
	}
	return out
}

// cancelled reports whether s was sent $/cancelRequest.
func cancelled(s *server) bool { return len(s.Notifications("$/cancelRequest")) > 0 }

// An approval is asked of both clients; the first answer executes the
// call, and the other client gets ui/resolved and a cancel. Then a question
// answered by the attached client resolves the owner's.
func TestQuestionsGoToEveryClient(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "write it", ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"a.txt","content":"approved by the owner"}`}}},
		{Match: "Successfully", Text: "written"},
		{Match: "ask me", ToolCalls: []llmtest.ToolCall{{ID: "q1", Name: "ask_user", Arguments: `{"question":"Which db?","options":["sqlite","postgres"]}`}}},
		{Match: "sqlite", Text: "sqlite it is"},
		{Text: "hi", Repeat: true},
	})
	rt := runtimeDir(t)
	owner := e.startNamed("owner-editor", startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path
	second := e.startNamed("second-editor", startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})

	release := make(chan struct{})
	defer close(release)
	wait := func(ctx context.Context) {
		select {
		case <-release:
		case <-time.After(60 * time.Second):
		}
	}
	secondAsked := make(chan struct{})
	owner.Handle("ui/requestApproval", func(ctx context.Context, params json.RawMessage) (any, error) {
		// Answer once the other client has been asked too.
		select {
		case <-secondAsked:
		case <-time.After(20 * time.Second):
			t.Error("the attached client was not asked")
		}
		return map[string]any{"decision": "approve"}, nil
	})
	second.Handle("ui/requestApproval", func(ctx context.Context, params json.RawMessage) (any, error) {
		close(secondAsked)
		wait(ctx)
		return map[string]any{"decision": "decline"}, nil
	})
	second.prompt("write it")
	second.waitFor("the run to end", func() bool { return readFile(t, filepath.Join(e.workspace, "a.txt")) != "" })
	second.waitIdle()
	if got := readFile(t, filepath.Join(e.workspace, "a.txt")); got != "approved by the owner" {
		t.Fatalf("a.txt = %q", got)
	}
	second.waitFor("ui/resolved", func() bool { return len(resolvedOf(second)) == 1 && cancelled(second) })
	r := resolvedOf(second)[0]
	if r.RequestID != "w1" || r.Kind != "approval" || string(r.Outcome) != `"approve"` || r.By != "owner-editor" {
		t.Fatalf("ui/resolved: %+v outcome %s", r, r.Outcome)
	}
	if len(resolvedOf(owner)) != 0 {
		t.Fatalf("the winner got ui/resolved: %+v", resolvedOf(owner))
	}

	// A question: the attached client answers first this time.
	second.Handle("ui/askQuestion", func(ctx context.Context, params json.RawMessage) (any, error) {
		return map[string]any{"answer": "sqlite"}, nil
	})
	owner.Handle("ui/askQuestion", func(ctx context.Context, params json.RawMessage) (any, error) {
		wait(ctx)
		return map[string]any{"answer": "postgres"}, nil
	})
	owner.prompt("ask me")
	owner.waitFor("ui/resolved at the owner", func() bool { return len(resolvedOf(owner)) == 1 })
	owner.waitIdle()
	r = resolvedOf(owner)[0]
	if r.RequestID == "" || r.Kind != "question" || string(r.Outcome) != `"sqlite"` || r.By != "second-editor" {
		t.Fatalf("ui/resolved: %+v outcome %s", r, r.Outcome)
	}
	if !strings.Contains(readFile(t, path), "sqlite it is") {
		t.Fatal("the run did not go on with the attached client's answer")
	}
}
