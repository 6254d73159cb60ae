package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
)

// Category groups tools for the approval chain.
type Category string

// Tool categories.
const (
	CategoryRead    Category = "read"
	CategoryEdit    Category = "edit"
	CategoryExecute Category = "execute"
	CategoryMCP     Category = "mcp"
	CategoryOther   Category = "other"
)

// Call is one tool call as the model made it.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
	// Reviewed, for edit and write, is the content the user accepted after
	// reviewing the call's preview: the tool writes exactly that.
	Reviewed *Reviewed
	// CutOff: the arguments were cut off in the stream; the harness does
	// not execute the call.
	CutOff bool
}

// Result is what a tool call produced.
type Result struct {
	Content []llm.ContentBlock // what the model sees
	Details json.RawMessage    // tool-specific (truncation info, fullOutputPath, pi's diff, task list)
	IsError bool
	// Display is the rendering for the editor ("" = derive from Content).
	// Built-in tools always fill it (when there is any text). Secrets are
	// not masked here: the wire masks them on the way out.
	Display string
	Diff    string // unified diff for edit/write
	Path    string // absolute path of the file modified, if any
	// Diagnostics are the new problems the call's change made, one line
	// each, as appended to Content (the display shows them under the item).
	Diagnostics []string
}

// Text concatenates the text blocks of the result's content.
func (r Result) Text() string { return llm.JoinText(r.Content) }

// Exec is what a tool execution may use besides its arguments.
type Exec struct {
	Env  env.Env
	Host Host // may be nil: tools fall back to plain text
	// Update receives streaming partial output (bash). It may be nil; it is
	// never called concurrently with itself.
	Update func(partial string)
	// Jobs are the session's background jobs (bash with background,
	// job_output, job_kill); nil where there are none (those calls fail).
	Jobs *env.Jobs
}

// Tool is one tool the model can call.
type Tool interface {
	Definition() llm.Tool // name, description, JSON schema of the parameters
	Category() Category
	// Execute runs the call. Failures are Results with IsError, never panics.
	Execute(ctx context.Context, call Call, x Exec) Result
}

// ByName indexes tools by their definition's name.
func ByName(ts []Tool) map[string]Tool {
	m := make(map[string]Tool, len(ts))
	for _, t := range ts {
		m[t.Definition().Name] = t
	}
	return m
}

// Finalize fills Display from Content when it is empty. Built-in tools call
// it themselves; a harness applies it to results of other tools (MCP,
// extensions). Secrets are masked once, where data leaves the process (rpc's
// egress), not here.
func Finalize(res Result) Result {
	if res.Display == "" {
		res.Display = res.Text()
	}
	return res
}

// builtin is the shared shape of every built-in tool: a fixed definition and
// a run function. Execute adds what every tool needs: panic safety, the
// display copy and redaction.
type builtin struct {
	def llm.Tool
	cat Category
	run func(ctx context.Context, call Call, x Exec) Result
	// access lists the paths a call touches (nil: none named).
	access func(args json.RawMessage, e env.Env) []Access
}

func (b *builtin) Definition() llm.Tool { return b.def }
func (b *builtin) Category() Category   { return b.cat }

func (b *builtin) Execute(ctx context.Context, call Call, x Exec) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(fmt.Sprintf("internal error in %s: %v", b.def.Name, p))
		}
		res = Finalize(res)
	}()
	if x.Env == nil && b.cat != CategoryOther {
		return errorResult(b.def.Name + ": no execution environment")
	}
	if err := ctx.Err(); err != nil {
		return errorResult("Operation aborted")
	}
	return b.run(ctx, call, x)
}

func newTool(name, description string, cat Category, schema string, run func(context.Context, Call, Exec) Result) Tool {
	return &builtin{
		def: llm.Tool{Name: name, Description: description, Parameters: json.RawMessage(schema)},
		cat: cat,
		run: run,
	}
}

// withAccess sets the path lister of a built-in tool.
func withAccess(t Tool, access func(json.RawMessage, env.Env) []Access) Tool {
	if b, ok := t.(*builtin); ok {
		b.access = access
	}
	return t
}

// textResult is a successful result holding one text block.
func textResult(text string) Result {
	return Result{Content: []llm.ContentBlock{llm.TextBlock(text)}}
}

// errorResult is a failed result holding one text block.
func errorResult(text string) Result {
	return Result{Content: []llm.ContentBlock{llm.TextBlock(text)}, IsError: true}
}

// withDetails marshals details into the result; nil leaves Details empty.
func withDetails(res Result, details any) Result {
	if details == nil {
		return res
	}
	if b, err := json.Marshal(details); err == nil {
		res.Details = b
	}
	return res
}

// Builtins returns a fresh set of the built-in tools: read, write, edit,
// bash, grep, find, ls, ask_user, submit_plan, task_write, task_update,
// task_complete, task_check, subagent, diagnostics, lsp, job_output and job_kill. The tools of one set share a per-file lock
// (parallel edits of one file are serialised) and, for runs without a Host,
// an in-memory task list.
func Builtins() []Tool {
	locks := &fileLocks{}
	tasks := &taskStore{}
	return []Tool{
		withAccess(readTool(), fileAccess(false)),
		withAccess(writeTool(locks), fileAccess(true)),
		withAccess(editTool(locks), fileAccess(true)),
		bashTool(),
		withAccess(grepTool(), rootAccess),
		withAccess(findTool(), rootAccess),
		withAccess(lsTool(), rootAccess),
		askUserTool(),
		submitPlanTool(),
		taskWriteTool(tasks),
		taskUpdateTool(tasks),
		taskCompleteTool(tasks),
		taskCheckTool(tasks),
		SubagentTool(),
		withAccess(diagnosticsTool(), fileAccess(false)),
		withAccess(lspTool(), fileAccess(false)),
		jobOutputTool(),
		jobKillTool(),
	}
}
