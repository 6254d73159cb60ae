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
	// Block, if set, refuses the prompt: it is not recorded and the run
	// ends with an error event carrying this reason.
	Block string
}

// SessionStart is what a session_start hook sees: the session a run is
// about to use for the first time in this process ("startup" for a new
// session, "resume" for one with history). Extra messages are recorded
// before the prompt.
type SessionStart struct {
	SessionID string
	Source    string
	Extra     []llm.Message
}

// AgentEndVerdict is an agent_end hook's answer when the model stopped on
// its own: Continue keeps the run going with Reason as a user message.
type AgentEndVerdict struct {
	Continue bool
	Reason   string
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
	sessionStart          []func(context.Context, *SessionStart)
	agentEnd              []func(ctx context.Context, stopReason string, continued bool) AgentEndVerdict
}

// OnSessionStart registers a session_start hook: it runs at the start of
// the first run of each session in this process.
func (h *Harness) OnSessionStart(fn func(context.Context, *SessionStart)) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.sessionStart = append(h.hooks.sessionStart, fn)
}

// OnAgentEnd registers an agent_end hook: it runs when the model stopped
// without asking for tools and nothing is queued, and may keep the run
// going. continued says an agent_end hook already continued this run.
func (h *Harness) OnAgentEnd(fn func(ctx context.Context, stopReason string, continued bool) AgentEndVerdict) {
	h.hooks.mu.Lock()
	defer h.hooks.mu.Unlock()
	h.hooks.agentEnd = append(h.hooks.agentEnd, fn)
}

func (h *Harness) runAgentEndHooks(ctx context.Context, stopReason string, continued bool) AgentEndVerdict {
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.agentEnd) {
		if v := fn(ctx, stopReason, continued); v.Continue {
			return v
		}
	}
	return AgentEndVerdict{}
}

// runSessionStartHooks runs the session_start hooks once per session.
func (h *Harness) runSessionStartHooks(ctx context.Context) []llm.Message {
	fns := snapshot(&h.hooks.mu, h.hooks.sessionStart)
	s := h.currentSession()
	if len(fns) == 0 || s == nil {
		return nil
	}
	h.mu.Lock()
	if h.startedSessions == nil {
		h.startedSessions = map[string]bool{}
	}
	seen := h.startedSessions[s.ID()]
	h.startedSessions[s.ID()] = true
	h.mu.Unlock()
	if seen {
		return nil
	}
	st := &SessionStart{SessionID: s.ID(), Source: "startup"}
	if msgs, err := h.contextMessages(ctx); err == nil && len(msgs) > 0 {
		st.Source = "resume"
	}
	for _, fn := range fns {
		fn(ctx, st)
	}
	return st.Extra
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

// compactReasonKey carries the compaction's reason ("threshold",
// "overflow", "manual") to session_before_compact hooks.
type compactReasonKey struct{}

// CompactReason is the reason of the compaction a session_before_compact
// hook runs for ("" outside one).
func CompactReason(ctx context.Context) string {
	r, _ := ctx.Value(compactReasonKey{}).(string)
	return r
}
