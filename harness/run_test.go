package harness_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/tools"
)

func TestMultiTurnToolRun(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"notes.txt"}`}}},
		{Match: "the secret word is kiwi", Text: "The file says kiwi."},
	})
	writeFile(t, f.dir+"/notes.txt", "the secret word is kiwi\n")
	f.prompt(t, "what does notes.txt say?")
	f.wait(t)

	want := []string{
		"agent_start", "message_start:user", "message_end:user",
		"turn_start", "message_start:assistant", "message_end:assistant",
		"tool_execution_start:read", "tool_execution_end:read", "message_start:toolResult", "message_end:toolResult", "turn_end",
		"turn_start", "message_start:assistant", "message_end:assistant", "turn_end",
		"agent_end",
	}
	if got := f.rec.types(); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	wantRoles := []string{"user:what does notes.txt say?", "assistant:toolUse", "toolResult", "assistant:stop"}
	if got := f.roles(t); !slices.Equal(got, wantRoles) {
		t.Fatalf("session: got %v want %v", got, wantRoles)
	}
	// The second request carried the tool result; both carried a system prompt with the tools.
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if !strings.Contains(string(reqs[1]), "the secret word is kiwi") || !strings.Contains(string(reqs[0]), `"name":"read"`) {
		t.Fatalf("second request lacks the tool result or first lacks tools: %s", reqs[1])
	}
	var text strings.Builder
	for _, e := range f.rec.all() {
		if e.Type == harness.EvMessageUpdate && e.DeltaKind == "text" {
			text.WriteString(e.Delta)
		}
	}
	if text.String() != "Let me look.The file says kiwi." {
		t.Fatalf("streamed text %q", text.String())
	}
}

func TestSteerBeforeFollowUp(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"sleep 0.4; echo done"}`}}},
		{Match: "STEER", Text: "steered"},
		{Match: "FOLLOW", Text: "followed"},
	}, yolo)
	f.prompt(t, "run it")
	waitFor(t, "bash to start", func() bool { return slices.Contains(f.rec.types(), "tool_execution_start:bash") })
	ctx := context.Background()
	if err := f.h.FollowUp(ctx, "FOLLOW up"); err != nil {
		t.Fatal(err)
	}
	if err := f.h.Steer(ctx, "STEER now"); err != nil {
		t.Fatal(err)
	}
	f.wait(t)
	want := []string{"user:run it", "assistant:toolUse", "toolResult", "user:STEER now", "assistant:stop", "user:FOLLOW up", "assistant:stop"}
	if got := f.roles(t); !slices.Equal(got, want) {
		t.Fatalf("session: got %v want %v", got, want)
	}
	if f.srv.Pending() != 0 {
		t.Fatalf("unused responses: %d", f.srv.Pending())
	}
}

func TestInterruptAbortsAndSendsAtOnce(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Text: strings.Repeat("word ", 400), ChunkDelayMs: 20},
		{Match: "INTERRUPT", Text: "ok, switching"},
	})
	f.prompt(t, "write a lot")
	waitFor(t, "streaming", func() bool {
		for _, e := range f.rec.all() {
			if e.Type == harness.EvMessageUpdate {
				return true
			}
		}
		return false
	})
	d, err := f.h.Prompt(context.Background(), "INTERRUPT: do this instead", harness.PromptOptions{StreamingBehavior: "interrupt"})
	if err != nil || d != harness.DeliveryInterrupt {
		t.Fatalf("interrupt: %v %v", d, err)
	}
	f.wait(t)
	want := []string{"user:write a lot", "assistant:aborted", "user:INTERRUPT: do this instead", "assistant:stop"}
	if got := f.roles(t); !slices.Equal(got, want) {
		t.Fatalf("session: got %v want %v", got, want)
	}
}

func TestAbortDuringStream(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{Text: strings.Repeat("slow ", 400), ChunkDelayMs: 20, ToolCalls: []llmtest.ToolCall{{ID: "c9", Name: "read", Arguments: `{"path":"x"}`}}},
	})
	f.prompt(t, "go")
	waitFor(t, "streaming", func() bool {
		return slices.ContainsFunc(f.rec.all(), func(e harness.Event) bool { return e.Type == harness.EvMessageUpdate })
	})
	f.h.Abort()
	f.wait(t)
	got := f.roles(t)
	if !slices.Equal(got, []string{"user:go", "assistant:aborted"}) {
		t.Fatalf("session: %v", got)
	}
	types := f.rec.types()
	if types[len(types)-1] != "agent_end" {
		t.Fatalf("last event %v", types)
	}
	if f.h.Phase() != harness.PhaseIdle {
		t.Fatalf("phase %s", f.h.Phase())
	}
}

func TestAbortDuringLongBash(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{
			{ID: "c1", Name: "bash", Arguments: `{"command":"sleep 30"}`},
			{ID: "c2", Name: "read", Arguments: `{"path":"x"}`},
		}},
	}, yolo)
	f.prompt(t, "sleep")
	waitFor(t, "bash", func() bool { return slices.Contains(f.rec.types(), "tool_execution_start:bash") })
	f.h.Abort()
	f.wait(t)
	// Both tool calls have results, the second a cancelled one: the next turn is valid.
	want := []string{"user:sleep", "assistant:toolUse", "toolResult:error", "toolResult:error"}
	if got := f.roles(t); !slices.Equal(got, want) {
		t.Fatalf("session: got %v want %v", got, want)
	}
}

func TestRetrySucceeds(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Status: 500}, {Status: 429}, {Text: "finally"}})
	f.prompt(t, "hi")
	f.wait(t)
	types := f.rec.types(harness.EvMessageUpdate, harness.EvUsage, harness.EvPhase)
	if n := strings.Count(strings.Join(types, " "), "retry_start"); n != 2 {
		t.Fatalf("retry_start x%d in %v", n, types)
	}
	if got := f.roles(t); !slices.Equal(got, []string{"user:hi", "assistant:stop"}) {
		t.Fatalf("session: %v", got)
	}
}

func TestRetryGivesUp(t *testing.T) {
	f := newFixture(t, []llmtest.Response{{Status: 503, Error: "overloaded", Repeat: true}})
	f.prompt(t, "hi")
	f.wait(t)
	got := f.roles(t)
	if !slices.Equal(got, []string{"user:hi", "assistant:error"}) {
		t.Fatalf("session: %v", got)
	}
	var sawErr bool
	for _, e := range f.rec.all() {
		if e.Type == harness.EvError && strings.Contains(e.Error, "503") {
			sawErr = true
		}
	}
	if !sawErr {
		t.Fatal("no error event naming the status")
	}
}

func TestHookBlocksTool(t *testing.T) {
	f := newFixture(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"touch blocked.txt"}`}}},
		{Match: "no bash today", Text: "understood"},
	}, yolo)
	f.h.OnToolCall(func(_ context.Context, c tools.Call) harness.ToolCallVerdict {
		if c.Name == "bash" {
			return harness.ToolCallVerdict{Block: true, Reason: "no bash today"}
		}
		return harness.ToolCallVerdict{}
	})
	f.prompt(t, "touch it")
	f.wait(t)
	if got := f.roles(t); !slices.Equal(got, []string{"user:touch it", "assistant:toolUse", "toolResult:error", "assistant:stop"}) {
		t.Fatalf("session: %v", got)
	}
	if fileExists(f.dir + "/blocked.txt") {
		t.Fatal("blocked command ran")
	}
}
