package harness

import (
	"context"
	"sync"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// AgentStart is what a before_agent_start hook may change: messages to add
// before the prompt, and the system prompt.
type AgentStart struct {
	Prompt       []llm.Message
	SystemPrompt string
	Extra        []llm.Message
}

// ToolCallVerdict is a tool_call hook's answer: Block stops the call, and
// Reason goes to the model.
type ToolCallVerdict struct {
	Block  bool
	Reason string
}

// ToolResultVerdict is a tool_result hook's answer: Result (if non-nil)
// replaces the result; Terminate ends the run after this turn.
type ToolResultVerdict struct {
	Result    *tools.Result
	Terminate bool
}

// CompactVerdict is a session_before_compact hook's answer: Cancel skips the
// compaction; Summary (if set) is used instead of asking the model.
type CompactVerdict struct {
	Cancel  bool
	Summary string
}

// hooks holds the registered hook handlers; they run in registration order
// and each sees the previous one's result.
type hooks struct {
	mu                    sync.Mutex
	beforeAgentStart      []func(context.Context, *AgentStart)
	context               []func(context.Context, []llm.Message) []llm.Message
	beforeProviderRequest []func(context.Context, *llm.Request)
	toolCall              []func(context.Context, tools.Call) ToolCallVerdict
	toolResult            []func(context.Context, tools.Call, tools.Result) ToolResultVerdict
	beforeCompact         []func(context.Context, *compaction.Preparation) CompactVerdict
}

// OnBeforeAgentStart registers a before_agent_start hook.
func (h *Harness) OnBeforeAgentStart(fn func(context.Context, *AgentStart)) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.beforeAgentStart = append(h.hooks.beforeAgentStart, fn)
}

// OnContext registers a context hook that may rewrite the messages sent to
// the model (the session is not changed).
func (h *Harness) OnContext(fn func(context.Context, []llm.Message) []llm.Message) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.context = append(h.hooks.context, fn)
}

// OnBeforeProviderRequest registers a hook that sees (and may change) each
// model request.
func (h *Harness) OnBeforeProviderRequest(fn func(context.Context, *llm.Request)) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.beforeProviderRequest = append(h.hooks.beforeProviderRequest, fn)
}

// OnToolCall registers a tool_call hook that may block a call.
func (h *Harness) OnToolCall(fn func(context.Context, tools.Call) ToolCallVerdict) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.toolCall = append(h.hooks.toolCall, fn)
}

// OnToolResult registers a tool_result hook that may rewrite a result or end
// the run.
func (h *Harness) OnToolResult(fn func(context.Context, tools.Call, tools.Result) ToolResultVerdict) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.toolResult = append(h.hooks.toolResult, fn)
}

// OnBeforeCompact registers a session_before_compact hook.
func (h *Harness) OnBeforeCompact(fn func(context.Context, *compaction.Preparation) CompactVerdict) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.beforeCompact = append(h.hooks.beforeCompact, fn)
}

func snapshot[T any](mu *sync.Mutex, xs []T) []T {
	mu.Lock()
	defer mu.Unlock()
	return append([]T(nil), xs...)
}

func (h *Harness) runContextHooks(ctx context.Context, msgs []llm.Message) []llm.Message {
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.context) {
		msgs = fn(ctx, msgs)
	}
	return msgs
}

func (h *Harness) runToolCallHooks(ctx context.Context, call tools.Call) ToolCallVerdict {
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.toolCall) {
		if v := fn(ctx, call); v.Block {
			return v
		}
	}
	return ToolCallVerdict{}
}

func (h *Harness) runToolResultHooks(ctx context.Context, call tools.Call, res tools.Result) (tools.Result, bool) {
	terminate := false
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.toolResult) {
		v := fn(ctx, call, res)
		if v.Result != nil {
			res = *v.Result
		}
		terminate = terminate || v.Terminate
	}
	return res, terminate
}
