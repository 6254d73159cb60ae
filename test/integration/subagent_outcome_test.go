package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// A subagent's tool call the user declines shows on the child's item with
// the outcome and reason its result recorded in the child's session, as a
// parent's declined call does on its own item.
func TestSubagentDeclinedToolCarriesTheRecordedOutcome(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "delegate the write", ToolCalls: []llmtest.ToolCall{subagentCall("g1", map[string]any{"task": "WRITE-TASK: create child.txt"})}},
		{Match: "WRITE-TASK", Text: "Writing now.", ToolCalls: []llmtest.ToolCall{writeCall("cw", "child.txt", "from the child")}},
		{Match: "declined", Text: "The write was declined."},
		{Match: "The write was declined", Text: "The child could not write it."},
	})
	s := e.start(startOpt{})
	s.Handle("ui/requestApproval", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"decision": "decline"}, nil
	})
	s.prompt("delegate the write")
	s.waitIdle()

	var child *protocol.Child
	s.waitFor("the child's declined write", func() bool {
		v, err := s.Display()
		if err != nil {
			return false
		}
		for _, it := range v.State.Items {
			if it.ID == "g1" && it.Child != nil && it.Child.Status == "done" {
				for _, ci := range it.Child.Items {
					if ci.ID == "cw" && ci.Status == "declined" {
						child = it.Child
						return true
					}
				}
			}
		}
		return false
	})
	// What the child's session recorded for the call.
	var details struct {
		Outcome string `json:"outcome"`
		Reason  string `json:"reason"`
	}
	f, err := os.Open(child.Session)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var en struct {
			Message struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"toolCallId"`
				Details    json.RawMessage `json:"details"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &en) == nil && en.Message.Role == "toolResult" && en.Message.ToolCallID == "cw" {
			if err := json.Unmarshal(en.Message.Details, &details); err != nil {
				t.Fatalf("details of the child's result: %v", err)
			}
		}
	}
	if details.Outcome != "declined" {
		t.Fatalf("the child's session recorded outcome %q, want declined", details.Outcome)
	}
	for _, ci := range child.Items {
		if ci.ID == "cw" && (string(ci.Outcome) != details.Outcome || ci.Reason != details.Reason) {
			t.Fatalf("child item outcome %q reason %q, recorded %q %q", ci.Outcome, ci.Reason, details.Outcome, details.Reason)
		}
	}
}
