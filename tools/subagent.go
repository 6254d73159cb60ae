package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

// SubagentToolName is the name of the subagent tool.
const SubagentToolName = "subagent"

const subagentSchema = `{"type":"object","properties":{` +
	`"agent":{"type":"string","description":"Name of the agent definition to run (see the available agents in the system prompt). Default: general."},` +
	`"task":{"type":"string","description":"The complete task for the subagent: what to do and what to report back. An isolated subagent sees nothing of this conversation but this text."},` +
	`"fork":{"type":"boolean","description":"true: the subagent starts from a copy of this conversation instead of a fresh context (default false)."},` +
	`"model":{"type":"string","description":"Model to run the subagent on, as provider/id (default: the agent's model, else yours)."}},` +
	`"required":["task"]}`

// SubagentRequest is one subagent call as the tool hands it to the harness.
type SubagentRequest struct {
	// ToolCallID is the parent's tool call that started the child.
	ToolCallID string
	Agent      string // "" = general
	Task       string
	Fork       bool
	Model      string // "" = the definition's, else the parent's
}

// SubagentResult is what a finished child run reports.
type SubagentResult struct {
	Agent     string
	Answer    string // the child's final answer
	Session   string // the child's session file
	SessionID string
	Fork      bool
	Model     string
	Turns     int
	ToolCalls int
	Tokens    llm.Usage
	// Notices are warnings the run met (an unknown model that fell back).
	Notices []string
}

// SubagentRunner is the back channel the subagent tool runs a child
// through; the harness's Host implements it. RunSubagent blocks until the
// child ends; an error (unknown agent, the child failed or was aborted)
// becomes the tool's error result, its text for the model.
type SubagentRunner interface {
	RunSubagent(ctx context.Context, req SubagentRequest) (SubagentResult, error)
}

// SubagentDetails are the tool result's details: they link the child's
// session file from the parent's session.
type SubagentDetails struct {
	Agent     string `json:"agent"`
	Session   string `json:"session"`
	SessionID string `json:"sessionId"`
	Fork      bool   `json:"fork,omitempty"`
	Model     string `json:"model,omitempty"`
	Status    string `json:"status"` // done | error | aborted
	Turns     int    `json:"turns"`
	ToolCalls int    `json:"toolCalls"`
	Input     int    `json:"inputTokens"`
	Output    int    `json:"outputTokens"`
}

// SubagentError is a failed child run: Details still link its session
// when one was written.
type SubagentError struct {
	Msg     string
	Details *SubagentDetails
}

func (e *SubagentError) Error() string { return e.Msg }

type subagentArgs struct {
	Agent string  `json:"agent"`
	Task  string  `json:"task"`
	Fork  optBool `json:"fork"`
	Model string  `json:"model"`
}

// SubagentTool returns the subagent tool. It needs a Host that implements
// SubagentRunner; without one it answers that subagents are unavailable.
func SubagentTool() Tool {
	return newTool(SubagentToolName,
		"Delegate a task to a subagent: an agent with its own context that runs the task to its end and returns its final answer. "+
			"Several subagent calls in one message run concurrently.",
		CategoryOther, subagentSchema, runSubagent)
}

func runSubagent(ctx context.Context, call Call, x Exec) Result {
	var a subagentArgs
	if err := decodeArgs(call.Args, &a); err != nil {
		return invalidArgs(SubagentToolName, err)
	}
	a.Task = strings.TrimSpace(a.Task)
	if a.Task == "" {
		return errorResult("subagent: task is required: say what the subagent should do and report")
	}
	runner, ok := x.Host.(SubagentRunner)
	if !ok || runner == nil {
		return errorResult("subagent: subagents are not available in this session")
	}
	res, err := runner.RunSubagent(ctx, SubagentRequest{ToolCallID: call.ID, Agent: strings.TrimSpace(a.Agent), Task: a.Task, Fork: bool(a.Fork), Model: strings.TrimSpace(a.Model)})
	if err != nil {
		out := errorResult("subagent: " + err.Error())
		var se *SubagentError
		if errors.As(err, &se) && se.Details != nil {
			out = withDetails(out, se.Details)
		}
		return out
	}
	answer := res.Answer
	if strings.TrimSpace(answer) == "" {
		answer = "(the subagent gave no final answer)"
	}
	text := answer + "\n\n" + SubagentFooter(res)
	d := SubagentDetails{Agent: res.Agent, Session: res.Session, SessionID: res.SessionID, Fork: res.Fork, Model: res.Model, Status: "done",
		Turns: res.Turns, ToolCalls: res.ToolCalls, Input: res.Tokens.Input, Output: res.Tokens.Output}
	return withDetails(textResult(text), d)
}

// SubagentFooter is the short line under a child's answer: turns, tool
// calls and tokens.
func SubagentFooter(r SubagentResult) string {
	kind := "subagent"
	if r.Fork {
		kind = "forked subagent"
	}
	s := fmt.Sprintf("[%s %s: %d turn%s, %d tool call%s, %d tokens (%d in, %d out)]", kind, r.Agent,
		r.Turns, plural(r.Turns), r.ToolCalls, plural(r.ToolCalls), r.Tokens.Input+r.Tokens.Output, r.Tokens.Input, r.Tokens.Output)
	for _, n := range r.Notices {
		s += "\n[note: " + n + "]"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ForkStubText is what a stubbed tool answers inside a forked subagent.
const ForkStubText = "not available in a forked subagent"

// Stub returns a tool with t's definition (byte for byte, so a fork's tool
// schemas stay those of its parent) that runs nothing and answers
// ForkStubText as an error.
func Stub(t Tool) Tool { return stub{t} }

type stub struct{ t Tool }

func (s stub) Definition() llm.Tool { return s.t.Definition() }
func (s stub) Category() Category   { return CategoryOther }
func (s stub) Execute(_ context.Context, call Call, _ Exec) Result {
	return Result{Content: []llm.ContentBlock{llm.TextBlock(call.Name + ": " + ForkStubText)}, IsError: true, Display: call.Name + ": " + ForkStubText}
}

// IsTaskTool reports whether name is one of the task list tools.
func IsTaskTool(name string) bool {
	switch name {
	case "task_write", "task_update", "task_complete", "task_check":
		return true
	}
	return false
}
