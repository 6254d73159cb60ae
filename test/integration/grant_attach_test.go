package integration

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Issue 33 bug 13 with a second client attached: "always allow tool"
// answered by the attached client holds for the next call, and after the
// owner leaves for another session and opens the first one again.
func TestGrantByAttachedClientHoldsAcrossSwitch(t *testing.T) {
	bash := func(id, cmd string) []llmtest.ToolCall {
		return []llmtest.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"` + cmd + `"}`}}
	}
	e := newEnv(t, []llmtest.Response{
		{Match: "run alpha", ToolCalls: bash("b1", "echo alpha-out")},
		{Match: "alpha-out", Text: "ran alpha"},
		{Match: "run beta", ToolCalls: bash("b2", "echo beta-out")},
		{Match: "beta-out", Text: "ran beta"},
		{Match: "run gamma", ToolCalls: bash("b3", "echo gamma-out")},
		{Match: "gamma-out", Text: "ran gamma"},
		{Text: "hi", Repeat: true},
	})
	rt := runtimeDir(t)
	owner := e.startNamed("owner-editor", startOpt{extraEnv: rt})
	owner.prompt("make a session")
	owner.waitIdle()
	path := owner.state().Path
	second := e.startNamed("second-editor", startOpt{extraEnv: rt, initOpts: map[string]any{"session": path}})

	var ownerAsked, secondAsked atomic.Int32
	owner.Handle("ui/requestApproval", func(ctx context.Context, _ json.RawMessage) (any, error) {
		ownerAsked.Add(1)
		// The attached client answers; this one waits until it is resolved.
		select {
		case <-ctx.Done():
		case <-time.After(30 * time.Second):
		}
		return map[string]any{"decision": "decline"}, nil
	})
	second.Handle("ui/requestApproval", func(ctx context.Context, _ json.RawMessage) (any, error) {
		secondAsked.Add(1)
		return map[string]any{"decision": "alwaysAllowTool"}, nil
	})
	second.prompt("run alpha")
	owner.waitFor("ran alpha", func() bool { return strings.Contains(readFile(t, path), "ran alpha") })
	owner.waitIdle()
	if secondAsked.Load() != 1 {
		t.Fatalf("the attached client was asked %d times for the first call", secondAsked.Load())
	}
	second.prompt("run beta")
	owner.waitFor("ran beta", func() bool { return strings.Contains(readFile(t, path), "ran beta") })
	owner.waitIdle()
	owner.call("session/new", nil, nil)
	owner.call("session/open", map[string]any{"path": path}, nil)
	owner.prompt("run gamma")
	owner.waitFor("ran gamma", func() bool { return strings.Contains(readFile(t, path), "ran gamma") })
	owner.waitIdle()
	if n := secondAsked.Load(); n != 1 {
		t.Fatalf("the attached client was asked %d times; the grant should have held", n)
	}
}
