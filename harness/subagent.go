package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/skills"
	"github.com/pi-lsp/pi-lsp/tools"
)

// DefaultMaxSubagents is subagents.maxConcurrent when it is not set.
const DefaultMaxSubagents = 4

// customSubagent is the custom entry a child session records its origin in.
const customSubagent = "pi-lsp/subagent"

// Subagent event types: the child's live activity, on the parent harness.
const (
	EvSubagentStart EventType = "subagent_start" // Subagent: the child and its session
	EvSubagentEvent EventType = "subagent_event" // Subagent, Child: one event of the child's run
	EvSubagentEnd   EventType = "subagent_end"   // Subagent, Reason (done|error|aborted), Tokens (the child's), Error
)

// SubagentSettings configure subagents (settings file: "subagents").
type SubagentSettings struct {
	// MaxConcurrent caps the children running at once (0 = 4).
	MaxConcurrent int `json:"maxConcurrent"`
	// ModelAliases maps Claude Code's model names (sonnet, opus, haiku) to
	// provider/id for .claude/agents definitions.
	ModelAliases map[string]string `json:"modelAliases"`
}

// SubagentRef names the child an event or an approval request comes from:
// its agent and the parent's subagent tool call.
type SubagentRef struct {
	Agent      string `json:"agent"`
	ToolCallID string `json:"toolCallId"`
	Session    string `json:"session,omitempty"` // the child's session file
	SessionID  string `json:"sessionId,omitempty"`
	Fork       bool   `json:"fork,omitempty"`
}

// subagentState is the harness's part in subagents: as a parent, the
// concurrency cap and the last model request (what a fork repeats); as a
// child, the link to its parent.
type subagentState struct {
	once sync.Once
	sem  chan struct{}

	mu        sync.Mutex
	lastReq   *llm.Request
	lastTools []tools.Tool
	lastLeaf  string // the session leaf when lastReq was built

	link *SubagentRef // set on a child harness
	up   *Harness     // the parent of a child harness
}

func (h *Harness) subagentSem() chan struct{} {
	h.sa.once.Do(func() {
		n := h.cfg.Subagents.MaxConcurrent
		if n <= 0 {
			n = DefaultMaxSubagents
		}
		h.sa.sem = make(chan struct{}, n)
	})
	return h.sa.sem
}

// noteRequest keeps the request about to be sent (after hooks) and the
// tools it offers, for a fork to repeat.
func (h *Harness) noteRequest(req llm.Request, active []tools.Tool) {
	leaf := ""
	if s := h.currentSession(); s != nil {
		leaf = s.LeafID()
	}
	h.sa.mu.Lock()
	h.sa.lastReq, h.sa.lastTools, h.sa.lastLeaf = &req, active, leaf
	h.sa.mu.Unlock()
}

// Agents returns the agent definitions: the built-ins, the user's and the
// project's, with the diagnostics of the files that were read.
func (h *Harness) Agents(ctx context.Context) skills.AgentsResult {
	var known []string
	for _, t := range h.tools {
		if n := t.Definition().Name; n != tools.SubagentToolName {
			known = append(known, n)
		}
	}
	r, err := skills.LoadAgents(ctx, h.cfg.Env, skills.AgentSources{
		Home: h.cfg.AgentDir, Cwd: h.Cwd(), KnownTools: known, ModelAliases: h.cfg.Subagents.ModelAliases,
	})
	if err != nil {
		h.log.Warn("load agents", "err", err)
	}
	return r
}

// agentsForPrompt are the definitions listed in the system prompt (none in
// a child: it cannot delegate).
func (h *Harness) agentsForPrompt(ctx context.Context, active []tools.Tool) []skills.AgentDef {
	if h.sa.up != nil {
		return nil
	}
	for _, t := range active {
		if t.Definition().Name == tools.SubagentToolName {
			return h.Agents(ctx).Agents
		}
	}
	return nil
}

// RunSubagent implements tools.SubagentRunner for the run's tools.
func (x *host) RunSubagent(ctx context.Context, req tools.SubagentRequest) (tools.SubagentResult, error) {
	return x.h.runSubagent(ctx, req)
}

func availableAgents(r skills.AgentsResult) string {
	var parts []string
	for _, a := range r.Agents {
		parts = append(parts, fmt.Sprintf("%s (%s)", a.Name, a.Description))
	}
	return "Available agents: " + strings.Join(parts, "; ") + "."
}

// child is one subagent run being prepared or watched.
type child struct {
	h     *Harness // the child harness
	ref   SubagentRef
	def   skills.AgentDef
	model llm.Model

	mu        sync.Mutex
	answer    string
	errText   string
	reason    string
	turns     int
	toolCalls int
}

// runSubagent runs one child to its end. It blocks for a slot under the
// concurrency cap; ctx (the parent's run) ending aborts the child.
func (h *Harness) runSubagent(ctx context.Context, req tools.SubagentRequest) (tools.SubagentResult, error) {
	if h.sa.up != nil {
		return tools.SubagentResult{}, errors.New("subagents cannot start subagents (the depth is 1)")
	}
	name := req.Agent
	if name == "" {
		name = skills.AgentGeneral
	}
	agents := h.Agents(ctx)
	def, ok := agents.Agent(name)
	if !ok {
		if path, broken := agents.BrokenAgent(name); broken {
			return tools.SubagentResult{}, fmt.Errorf("the definition of agent %q (%s) failed validation: %s. %s",
				name, path, strings.Join(agents.Problems(path), "; "), availableAgents(agents))
		}
		return tools.SubagentResult{}, fmt.Errorf("unknown agent %q. %s", name, availableAgents(agents))
	}
	if held, _ := ctx.Value(slotHeld{}).(bool); !held {
		sem := h.subagentSem()
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return tools.SubagentResult{}, errors.New("aborted before the subagent started")
		}
		defer func() { <-sem }()
	}

	c, notices, err := h.newChild(ctx, req, def)
	if err != nil {
		return tools.SubagentResult{}, err
	}
	return h.watchChild(ctx, c, req, notices)
}

// childModel resolves the child's model: the call's, else the
// definition's, else the parent's. An unknown one falls back to the
// parent's with a notice.
func (h *Harness) childModel(ctx context.Context, req tools.SubagentRequest, def skills.AgentDef, parent llm.Model) (llm.Model, []string) {
	for _, ref := range []string{req.Model, def.Model} {
		if ref == "" {
			continue
		}
		if h.cfg.Models == nil {
			break
		}
		m, err := h.cfg.Models.Find(ctx, ref)
		if err == nil {
			return m, nil
		}
		n := fmt.Sprintf("model %q is unknown (%v); the subagent runs on %s", ref, err, parent.Ref())
		h.log.Warn("subagent model", "agent", def.Name, "notice", n)
		return parent, []string{n}
	}
	return parent, nil
}

// newChild builds the child harness and its session.
func (h *Harness) newChild(ctx context.Context, req tools.SubagentRequest, def skills.AgentDef) (*child, []string, error) {
	parentSess := h.currentSession()
	if parentSess == nil {
		return nil, nil, ErrNoSession
	}
	parentModel, err := h.Model(ctx)
	if err != nil {
		return nil, nil, err
	}
	h.sa.mu.Lock()
	last, lastTools, lastLeaf := h.sa.lastReq, h.sa.lastTools, h.sa.lastLeaf
	h.sa.mu.Unlock()
	if req.Fork && last == nil {
		return nil, nil, errors.New("fork: there is no model request of this run to fork from")
	}

	var childTools []tools.Tool
	if req.Fork {
		// The parent's tools in the parent's order, with the same schemas;
		// what must not run in a fork answers as a stub.
		for _, t := range lastTools {
			n := t.Definition().Name
			if n == tools.SubagentToolName || tools.IsTaskTool(n) || n == "submit_plan" || n == tools.GoalDoneToolName {
				t = tools.Stub(t)
			}
			childTools = append(childTools, t)
		}
	} else {
		allowed := map[string]bool{}
		for _, n := range def.Tools {
			allowed[n] = true
		}
		for _, t := range h.activeTools() {
			n := t.Definition().Name
			if n == tools.SubagentToolName || n == "submit_plan" || n == tools.GoalDoneToolName || (def.Tools != nil && !allowed[n]) {
				continue
			}
			childTools = append(childTools, t)
		}
	}
	model, notices := parentModel, []string(nil)
	if req.Fork {
		model = last.Model
		if req.Model != "" {
			model, notices = h.childModel(ctx, req, skills.AgentDef{Name: def.Name}, last.Model)
		}
	} else {
		model, notices = h.childModel(ctx, req, def, parentModel)
	}

	// The child keeps the parent's boundary and sandbox (read-only when the
	// parent runs read-only, as in Plan mode).
	sandbox := h.cfg.Sandbox
	if h.configuredSandbox() == env.SandboxReadOnly {
		sandbox.Mode = env.SandboxReadOnly
	}
	ch := New(Config{
		Roots: h.cfg.Roots, AllowOutside: h.cfg.AllowOutside, Sandbox: sandbox, Policies: h.cfg.Policies,
		Env: h.cfg.Env, Models: h.cfg.Models, Streamer: h.cfg.Streamer,
		SessionsRoot: h.sessionsRoot(), AgentDir: h.cfg.AgentDir, SkillPaths: h.cfg.SkillPaths,
		Tools: childTools, Modes: []Mode{{ID: "subagent", Name: "Subagent"}},
		Environ: h.cfg.Environ, Logger: h.log.With("subagent", def.Name, "parentToolCallId", req.ToolCallID),
		Now: h.cfg.Now, BudgetOverrides: h.cfg.BudgetOverrides,
	})
	ch.sa.up = h
	ch.code.mgr = h.code.mgr // the parent's servers (not closed by the child)
	ch.cfg.Diagnostics = h.cfg.Diagnostics
	ch.SetUI(h.getUI())
	h.mu.Lock()
	ch.autoCompact = h.autoCompact
	thinking := h.thinking
	h.mu.Unlock()

	dir := filepath.Dir(parentSess.Path())
	var s *session.Session
	if req.Fork {
		s, err = session.ForkWith(ctx, parentSess, h.sessionsRoot(), lastLeaf, session.ForkOptions{At: true, Hidden: true, Dir: dir})
	} else {
		s, err = session.Create(ctx, h.sessionsRoot(), h.Cwd(), session.CreateOptions{ParentSession: parentSess.Path(), Hidden: true, Dir: dir})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("subagent session: %w", err)
	}
	ref := SubagentRef{Agent: def.Name, ToolCallID: req.ToolCallID, Session: s.Path(), SessionID: s.ID(), Fork: req.Fork}
	ch.sa.link = &ref

	if req.Fork {
		ch.sessions.swap(ctx, s, true)
		if last.ThinkingLevel != "" {
			thinking = last.ThinkingLevel
		}
	} else if def.Thinking != "" {
		thinking = llm.ThinkingLevel(def.Thinking)
	}
	ch.mu.Lock()
	ch.model, ch.hasModel, ch.thinking = model, true, thinking
	ch.mu.Unlock()
	if !req.Fork {
		ch.sessions.swap(ctx, s, false)
	}
	if _, err := s.AppendCustom(ctx, customSubagent, map[string]any{
		"agent": def.Name, "task": req.Task, "parentToolCallId": req.ToolCallID, "parentSession": parentSess.Path(),
		"fork": req.Fork, "model": model.Ref(),
	}); err != nil {
		_ = ch.Close()
		return nil, nil, fmt.Errorf("subagent session: %w", err)
	}

	if req.Fork {
		h.prepareFork(ctx, ch, last)
	} else {
		sys := h.isolatedPrompt(ctx, def, childTools)
		ch.OnBeforeAgentStart(func(_ context.Context, st *AgentStart) { st.SystemPrompt = sys })
	}
	return &child{h: ch, ref: ref, def: def, model: model}, notices, nil
}

// prepareFork makes the fork's requests start with the parent's last one:
// the same system prompt, the same tool schemas and, while the copied
// branch is still the head of the child's context, the same messages.
func (h *Harness) prepareFork(ctx context.Context, ch *Harness, last *llm.Request) {
	sys := last.SystemPrompt
	prefix := append([]llm.Message(nil), last.Messages...)
	defs := append([]llm.Tool(nil), last.Tools...)
	base, err := ch.contextMessages(ctx)
	n0 := len(base)
	if err != nil {
		n0 = -1
	}
	ch.mu.Lock()
	c0 := ch.compactions
	ch.mu.Unlock()
	ch.OnBeforeAgentStart(func(_ context.Context, st *AgentStart) { st.SystemPrompt = sys })
	ch.OnContext(func(_ context.Context, msgs []llm.Message) []llm.Message {
		ch.mu.Lock()
		compacted := ch.compactions != c0
		ch.mu.Unlock()
		if n0 < 0 || compacted || len(msgs) < n0 {
			return msgs
		}
		return append(append([]llm.Message(nil), prefix...), msgs[n0:]...)
	})
	ch.OnBeforeProviderRequest(func(_ context.Context, r *llm.Request) { r.Tools = defs })
}

// isolatedPrompt is an isolated child's system prompt: the definition's
// prompt, the project's context files (AGENTS.md) and the workspace facts.
func (h *Harness) isolatedPrompt(ctx context.Context, def skills.AgentDef, active []tools.Tool) string {
	in := skills.PromptInput{Base: def.Prompt, Cwd: h.Cwd(), Date: h.cfg.Now()}
	var names []string
	for _, t := range active {
		d := t.Definition()
		in.Tools = append(in.Tools, skills.ToolInfo{Name: d.Name, Description: d.Description})
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		names = []string{"(none)"}
	}
	in.AppendSystem = "Your tools: " + strings.Join(names, ", ") + ". Other tools are refused."
	cf, err := skills.FindContextFiles(ctx, h.cfg.Env, h.Cwd(), h.cfg.AgentDir)
	if err != nil {
		h.log.Warn("context files", "err", err)
	}
	in.ContextFiles = cf
	return skills.BuildSystemPrompt(in)
}

// watchChild runs the child's task, forwards its events to the parent's
// subscribers and waits for its end (aborting it when ctx ends).
func (h *Harness) watchChild(ctx context.Context, c *child, req tools.SubagentRequest, notices []string) (tools.SubagentResult, error) {
	ch := c.h
	ref := c.ref
	unsub := ch.Subscribe(func(ev Event) {
		c.observe(ev)
		cp := ev
		h.emit(Event{Type: EvSubagentEvent, ToolCallID: ref.ToolCallID, Subagent: &ref, Child: &cp})
	})
	h.emit(Event{Type: EvSubagentStart, ToolCallID: ref.ToolCallID, Subagent: &ref, Model: c.model.Ref()})

	err := ch.startRun(context.WithoutCancel(ctx), []llm.Message{llm.UserText(req.Task, h.now())})
	if err == nil {
		done := make(chan struct{})
		go func() {
			_ = ch.Wait(context.Background())
			close(done)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			ch.Abort()
			<-done
		}
	}
	unsub()
	tok := ch.tokensPtr()
	ch.mu.Lock()
	usage := ch.cumulative
	ch.mu.Unlock()
	if cerr := ch.Close(); cerr != nil {
		h.log.Warn("closing subagent session", "err", cerr)
	}

	c.mu.Lock()
	res := tools.SubagentResult{Agent: c.def.Name, Answer: c.answer, Session: ref.Session, SessionID: ref.SessionID, Fork: ref.Fork,
		Model: c.model.Ref(), Turns: c.turns, ToolCalls: c.toolCalls, Tokens: usage, Notices: notices}
	reason, errText := c.reason, c.errText
	c.mu.Unlock()
	status := "done"
	switch {
	case err != nil:
		status, errText = "error", err.Error()
	case ctx.Err() != nil || reason == string(llm.StopAborted):
		status = "aborted"
	case reason == "error":
		status = "error"
	}
	h.emit(Event{Type: EvSubagentEnd, ToolCallID: ref.ToolCallID, Subagent: &ref, Reason: status, Error: errText, Tokens: tok})
	if status == "done" {
		return res, nil
	}
	details := &tools.SubagentDetails{Agent: res.Agent, Session: res.Session, SessionID: res.SessionID, Fork: res.Fork, Model: res.Model,
		Status: status, Turns: res.Turns, ToolCalls: res.ToolCalls, Input: usage.Input, Output: usage.Output}
	msg := fmt.Sprintf("the %s subagent was aborted (session %s)", c.def.Name, ref.Session)
	if status == "error" {
		if errText == "" {
			errText = "it ended with an error"
		}
		msg = fmt.Sprintf("the %s subagent failed: %s (session %s)", c.def.Name, errText, ref.Session)
	}
	return res, &tools.SubagentError{Msg: msg, Details: details}
}

// observe keeps what the result needs from the child's events.
func (c *child) observe(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Type {
	case EvTurnStart:
		c.turns++
	case EvToolStart:
		c.toolCalls++
	case EvError:
		c.errText = ev.Error
	case EvAgentEnd:
		c.reason = ev.Reason
	case EvMessageEnd:
		if m := ev.Message; m != nil && m.Role == llm.RoleAssistant && m.StopReason != llm.StopError && m.StopReason != llm.StopAborted {
			if t := m.Text(); strings.TrimSpace(t) != "" || len(m.ToolCalls()) == 0 {
				c.answer = t
			}
		}
	}
}
