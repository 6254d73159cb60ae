package display_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// eventFromByte maps a byte to one of a small vocabulary of events over a
// few tool call ids, so random sequences exercise interleavings.
func eventFromByte(b byte, n int) harness.Event {
	id := "c" + strconv.Itoa(int(b>>5)%3)
	text := "w" + strconv.Itoa(n) + " "
	big := string(make([]byte, 3000+int(b)*20)) // tool output that crosses the cap
	switch b % 24 {
	case 0:
		return ev(harness.EvAgentStart)
	case 1:
		return ev(harness.EvAgentEnd)
	case 2:
		return harness.Event{Type: harness.EvMessageStart, Message: assistantMsg("")}
	case 3, 4, 5:
		return delta("text", text)
	case 6:
		return delta("thinking", text)
	case 7:
		return harness.Event{Type: harness.EvMessageEnd, Message: assistantMsg("final"+text, toolCall(id, "bash", `{}`))}
	case 8:
		return harness.Event{Type: harness.EvMessageStart, Message: userMsg(text)}
	case 9:
		return harness.Event{Type: harness.EvToolStart, ToolCallID: id, ToolName: "bash", Args: json.RawMessage(`{"n":` + strconv.Itoa(n) + `}`)}
	case 10:
		return harness.Event{Type: harness.EvToolUpdate, ToolCallID: id, Output: big[:len(big)/2]}
	case 11:
		return harness.Event{Type: harness.EvToolUpdate, ToolCallID: id, Output: big}
	case 12:
		return harness.Event{Type: harness.EvToolEnd, ToolCallID: id, Output: text, Path: "f" + id, IsError: b&1 == 1}
	case 13:
		return harness.Event{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: id, ToolName: "edit"}}
	case 14:
		return harness.Event{Type: harness.EvApprovalDone, ToolCallID: id, Decision: []string{"approve", "decline"}[b&1]}
	case 15:
		return harness.Event{Type: harness.EvQuestion, Question: &tools.Question{ID: id, Question: text}}
	case 16:
		return harness.Event{Type: harness.EvQueueUpdate, Steering: []string{text}}
	case 17:
		return harness.Event{Type: harness.EvTasks, Tasks: []tools.Task{{ID: id, Content: text}}}
	case 18:
		return harness.Event{Type: harness.EvError, Error: text}
	case 19:
		return harness.Event{Type: harness.EvUsage, Tokens: &harness.Tokens{Total: n}}
	case 20:
		return harness.Event{Type: harness.EvCompactionEnd, Summary: text}
	case 21:
		return harness.Event{Type: harness.EvSession, SessionID: id}
	case 22:
		return harness.Event{Type: harness.EvMessageEnd, Message: &llm.Message{Role: llm.RoleBashExecution, Command: text, Output: text}}
	default:
		return harness.Event{Type: harness.EvPhase, Phase: harness.Phase(text)}
	}
}

// FuzzReducerFrames checks the display invariant: a client that applies
// every frame it is sent ends with exactly the reducer's state, whatever
// the event order and batching.
func FuzzReducerFrames(f *testing.F) {
	f.Add([]byte{0, 8, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 1})
	f.Add([]byte{2, 3, 3, 3, 21, 3, 3, 7, 13, 14, 12, 18, 18, 1})
	f.Add([]byte{9, 10, 11, 10, 11, 12, 45, 41, 42, 16, 17, 19, 20, 22, 23})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			data = data[:400]
		}
		r := display.NewReducer(display.ReducerOptions{})
		clk := newFake()
		c := newClient(t, r, clk)
		late := (*client)(nil)
		for i, b := range data {
			r.Apply(eventFromByte(b, i))
			if b&0x10 != 0 {
				clk.Advance(time.Duration(b) * 3 * time.Millisecond)
			}
			if i == len(data)/2 {
				late = newClient(t, r, clk)
			}
			c.drain()
		}
		clk.Advance(time.Second)
		c.drain()
		c.check(r)
		if late != nil {
			late.drain()
			late.check(r)
		}
	})
}

// FuzzPatch decodes arbitrary ops in their wire form and applies them with
// Patch: both must fail cleanly, not panic.
func FuzzPatch(f *testing.F) {
	f.Add(`{"a":[1,"x",{"b":"y"}]}`, `[["a",["a",2,"b"],"z"],["p",["a"],1],["d",["a"]]]`)
	f.Add(`{"items":[]}`, `[["s",["items",0],1]]`)
	f.Add(`{}`, `[["x",[],1],["s"],["d",["a"],1],[]]`)
	f.Fuzz(func(t *testing.T, doc, ops string) {
		var d any
		var o []display.Op
		if json.Unmarshal([]byte(doc), &d) != nil || json.Unmarshal([]byte(ops), &o) != nil {
			return
		}
		_, _ = display.Patch(d, o)
	})
}
