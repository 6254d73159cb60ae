package acp

import (
	"context"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/outbox"
)

// A session's updates go onto its outbox typed: once the client is behind,
// agent message and thought text chunks merge with the queued chunk of the
// same stream only, never across a tool call or a plan, and tool calls,
// tool call updates and plans are all kept, in order.
func TestSessionQueueMergesOnlyChunksOfOneStream(t *testing.T) {
	s := &sess{out: outbox.New(outbox.Options{MergeAt: 1})}
	s.send(sdk.StartToolCall("call_1", "read"))
	s.send(sdk.UpdateAgentMessageText("a"))
	s.send(sdk.UpdateAgentThoughtText("x"))
	s.send(sdk.UpdateAgentMessageText("b"))
	s.send(sdk.UpdateAgentThoughtText("y"))
	s.send(sdk.UpdateToolCall("call_1", sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)))
	s.send(sdk.UpdateAgentMessageText("c"))
	s.send(sdk.UpdatePlan(sdk.PlanEntry{Content: "step"}))
	s.send(sdk.UpdateAgentMessageText("d"))
	s.out.Close()
	var got []string
	for {
		items, _, open := s.out.Take(context.Background())
		for _, it := range items {
			u := it.Params.(sdk.SessionUpdate)
			kind, text, ok := textChunk(u)
			switch {
			case ok:
				got = append(got, kind+":"+text)
			case u.ToolCall != nil:
				got = append(got, "tool_call")
			case u.ToolCallUpdate != nil:
				got = append(got, "tool_call_update")
			case u.Plan != nil:
				got = append(got, "plan")
			default:
				got = append(got, "other")
			}
		}
		if !open {
			break
		}
	}
	want := []string{"tool_call", "message:ab", "thought:xy", "tool_call_update", "message:c", "plan", "message:d"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}
