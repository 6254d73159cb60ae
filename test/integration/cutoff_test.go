package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// A write whose arguments were cut off by finish_reason "length" is not
// executed: the model gets a tool error asking to repeat it smaller, and the
// editor sees it.
func TestTruncatedWriteNotExecuted(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: `{"path":"big.txt","content":"line 1\nline 2\nline 3 and the rest of the fi`}}, FinishReason: "length"},
		{Match: "was cut off", Text: "I will write it in parts"},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("write a big file")
	s.waitIdle()
	if _, err := os.Stat(filepath.Join(e.workspace, "big.txt")); err == nil {
		t.Fatal("the cut-off write was executed")
	}
	res := toolResults(s)
	if len(res) != 1 || !strings.Contains(res[0], "cut off") || !strings.Contains(res[0], "smaller") {
		t.Fatalf("tool result: %q", res)
	}
	if e.llm.Pending() != 0 {
		t.Fatal("the model was not told the call was cut off")
	}
	s.waitFor("the editor sees the cut-off call", func() bool {
		return strings.Contains(s.allNotifications(), "was cut off")
	})
}

// A stream dropped inside a tool call's arguments: the call is not run.
func TestDroppedStreamToolCallNotExecuted(t *testing.T) {
	args := `{"path":"dropped.txt","content":"` + strings.Repeat("x", 200) + `"}`
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write", Arguments: args}}, DropAfter: 4, ChunkSize: 16},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("write")
	s.waitIdle()
	if _, err := os.Stat(filepath.Join(e.workspace, "dropped.txt")); err == nil {
		t.Fatal("the call of a dropped stream was executed")
	}
}
