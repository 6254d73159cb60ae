package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// startRun claims the idle harness and runs prompts in the background.
func (h *Harness) startRun(ctx context.Context, prompts []llm.Message) error {
	if h.owner.isClosed() {
		return ErrClosed
	}
	model, err := h.Model(ctx)
	if err != nil {
		return err
	}
	if _, err := h.ensureSession(ctx); err != nil {
		return err
	}
	h.warmCode()
	return h.owner.start(model, prompts)
}

// run is one agent run: turns until the model stops asking for tools and
// no steering or follow-up is queued, or until abort. The run owner started
// it (agent_start is sent) and ends it (finish: agent_end).
func (h *Harness) run(ctx context.Context, model llm.Model, prompts []llm.Message) {
	x := &host{h: h}
	var endReason EndReason
	h.resetContextFiles()
	// The previous run's end checkpoint goes below its last entry, before
	// this run's prompt (checkpoint_end.go).
	_ = h.settleCheckpoint(context.WithoutCancel(ctx))
	var startCheckpoint *runCheckpoint
	defer func() {
		h.checkpointRunEnd(ctx, startCheckpoint.join(ctx, h))
		var verdict *goalVerdict
		if endReason != EndAborted && ctx.Err() == nil {
			if v, ok := h.judgeGoal(ctx, x); ok {
				verdict = &v
			}
		}
		if ctx.Err() != nil {
			endReason = endReasonOf(ctx) // aborted (or closed) while its goal was judged
		}
		h.maybeTitle(ctx, model, endReason) // title.go
		h.owner.finish(endReason, x.planApproved.Load(), verdict)
	}()

	start := &AgentStart{Prompt: prompts, Extra: h.runSessionStartHooks(ctx)}
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.beforeAgentStart) {
		fn(ctx, start)
	}
	if start.Block != "" {
		h.fail(fmt.Errorf("prompt blocked by a hook: %s", start.Block))
		endReason = EndBlocked
		return
	}
	// A context that cannot be built fails the prompt before anything is
	// appended for it.
	// An abort does not drop the prompt: it is recorded, then the run ends.
	if _, err := h.contextMessages(context.WithoutCancel(ctx)); err != nil {
		h.fail(fmt.Errorf("build context: %w", err))
		endReason = EndError
		return
	}
	stopContinued := false
	for _, m := range append(start.Extra, start.Prompt...) {
		if err := h.recordMessage(ctx, m); err != nil {
			h.fail(fmt.Errorf("record prompt: %w", err))
			endReason = EndError
			return
		}
	}
	startCheckpoint = h.startRunCheckpoint(ctx) // joined before the first answer is recorded
	overflowRetried := false
	for {
		h.emit(Event{Type: EvTurnStart})
		if ctx.Err() != nil {
			h.emit(Event{Type: EvTurnEnd})
			endReason = endReasonOf(ctx)
			return
		}
		model = h.currentModel(model)
		cm := h.contextMgr(model)
		if err := cm.prepare(ctx); err != nil {
			h.emit(Event{Type: EvTurnEnd})
			h.fail(err)
			endReason = EndError
			return
		}
		if err := h.recordJobNotes(ctx); err != nil {
			h.log.Warn("record job notes", "err", err)
		}
		req, err := h.buildRequest(ctx, model, start.SystemPrompt)
		if err != nil {
			h.emit(Event{Type: EvTurnEnd})
			h.fail(err)
			endReason = EndError
			return
		}
		msg := h.streamAssistant(ctx, req)
		if msg.StopReason == llm.StopAborted && endReasonOf(ctx) == EndClientGone {
			msg.ErrorMessage = ClientGoneMessage // the session keeps why it ended
		}
		startCheckpoint.join(ctx, h) // the files before any tool of this run
		cm.calibrate(&req, &msg)
		if msg.StopReason == llm.StopError && !overflowRetried && !h.observational() && isContextOverflow(msg.ErrorMessage) {
			// The provider says the context is too long: learn how it
			// counts, compact (or, with nothing before the turn, trim the
			// turn's tool outputs) and retry once.
			overflowRetried = true
			cm.calibrateOverflow(&req, msg.ErrorMessage)
			err := h.compact(ctx, model, "overflow", "")
			if errors.Is(err, compaction.ErrNothingToCompact) || errors.Is(err, compaction.ErrAlreadyCompacted) {
				if ok, terr := cm.trimLastTurn(ctx); ok && terr == nil {
					err = nil
				}
			}
			if err == nil {
				// The failed call is not recorded: its message ends here.
				h.emit(Event{Type: EvMessageEnd, Message: &msg})
				h.emit(Event{Type: EvTurnEnd})
				continue
			}
		}
		if err := h.recordMessage(ctx, msg); err != nil {
			h.fail(fmt.Errorf("record assistant message: %w", err))
			endReason = EndError
			return
		}
		calls := msg.ToolCalls()
		terminate := false
		if msg.StopReason == llm.StopAborted || msg.StopReason == llm.StopError {
			// Every tool call gets a result, so the next turn is valid for any provider.
			why := EndError
			if msg.StopReason == llm.StopAborted {
				why = endReasonOf(ctx)
			}
			for _, c := range calls {
				res := cancelledResult(why)
				if c.CutOff && msg.StopReason == llm.StopError {
					res = errorResult(cutOffText(c.Name))
				}
				h.recordToolResult(context.Background(), c, res)
			}
			h.emit(Event{Type: EvTurnEnd})
			if msg.StopReason == llm.StopError {
				h.fail(fmt.Errorf("model error: %s", msg.ErrorMessage))
			}
			endReason = EndReason(msg.StopReason)
			return
		}
		if len(calls) > 0 {
			terminate = h.executeTools(ctx, x, calls)
		}
		h.emit(Event{Type: EvTurnEnd})
		h.owner.flush(ctx)
		if ctx.Err() != nil {
			endReason = endReasonOf(ctx)
			return
		}
		if terminate || x.planApproved.Load() != nil {
			endReason = EndTerminated
			return
		}
		if steer := h.owner.take(DeliverySteer); len(steer) > 0 {
			if !h.recordAll(ctx, steer) {
				endReason = EndError
				return
			}
			continue
		}
		if len(calls) > 0 {
			continue
		}
		if fu := h.owner.take(DeliveryFollowUp); len(fu) > 0 {
			if !h.recordAll(ctx, fu) {
				endReason = EndError
				return
			}
			continue
		}
		if v := h.runAgentEndHooks(ctx, string(msg.StopReason), stopContinued); v.Continue && ctx.Err() == nil {
			stopContinued = true
			if !h.recordAll(ctx, []llm.Message{llm.UserText(v.Reason, h.now())}) {
				endReason = EndError
				return
			}
			continue
		}
		endReason = EndReason(msg.StopReason)
		return
	}
}

func (h *Harness) recordAll(ctx context.Context, ms []llm.Message) bool {
	for _, m := range ms {
		if err := h.recordMessage(ctx, m); err != nil {
			h.fail(fmt.Errorf("record message: %w", err))
			return false
		}
	}
	return true
}

// currentModel returns the model a queued change may have switched to.
func (h *Harness) currentModel(fallback llm.Model) llm.Model {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hasModel {
		return h.model
	}
	return fallback
}

// fail reports an error event.
func (h *Harness) fail(err error) {
	h.log.Warn("harness error", "err", err)
	h.emit(Event{Type: EvError, Error: err.Error()})
}

// recordMessage appends a message to the session (fsynced) and emits
// message_start and message_end (with displayCopy).
//
// A provider's error text is the one value masked here, because it is data
// at rest, not wire: providers quote the rejected API key ("Incorrect API
// key provided: sk-…"), the text is for people (the model never sees an
// errored turn again), and a session file outlives the process. Tool output
// and arguments are stored as they are: the model needs them on resume.
func (h *Harness) recordMessage(ctx context.Context, m llm.Message) error {
	s := h.currentSession()
	if s == nil {
		return ErrNoSession
	}
	m.ErrorMessage = h.redact.Redact(m.ErrorMessage)
	// A record must not be lost because the run was aborted.
	ctx = context.WithoutCancel(ctx)
	safe := h.displayCopy(m)
	if m.Role != llm.RoleAssistant {
		h.emit(Event{Type: EvMessageStart, Message: &safe})
	}
	if _, err := s.AppendMessage(ctx, m); err != nil {
		return err
	}
	if m.Role == llm.RoleAssistant && m.StopReason != llm.StopError && m.StopReason != llm.StopAborted {
		h.mu.Lock()
		h.lastUsage = m.Usage
		h.mu.Unlock()
	}
	h.emit(Event{Type: EvMessageEnd, Message: &safe})
	h.noteShown(1)
	if m.Role == llm.RoleAssistant {
		h.addUsage(m.Usage)
	}
	return nil
}

// displayCopy is the message as events carry it: a tool result without
// its Details (the tool's own structured data, which no display reads).
// Secrets are not masked here: the wire masks every outgoing message once
// (rpc's egress), and the model keeps the real value.
func (h *Harness) displayCopy(m llm.Message) llm.Message {
	if m.Role != llm.RoleToolResult && m.Role != llm.RoleBashExecution {
		return m
	}
	c := m
	// Details stay: history shows the edit's diff, bash's full-output path and
	// a subagent's session link from them (the wire's egress masks secrets).
	return c
}

// buildRequest rebuilds the context, the system prompt and the active tools
// for one model call.
func (h *Harness) buildRequest(ctx context.Context, model llm.Model, systemOverride string) (llm.Request, error) {
	h.startMCP(ctx)
	msgs, err := h.contextMessages(ctx)
	if err != nil {
		return llm.Request{}, fmt.Errorf("build context: %w", err)
	}
	msgs = h.runContextHooks(ctx, msgs)
	active := h.activeTools()
	defs := make([]llm.Tool, 0, len(active))
	for _, t := range active {
		defs = append(defs, t.Definition())
	}
	sys := systemOverride
	if sys == "" {
		sys = h.systemPrompt(ctx, active)
	}
	req := llm.Request{Model: model, SystemPrompt: sys, Messages: msgs, Tools: defs}
	if model.Reasoning {
		req.ThinkingLevel = h.Thinking()
	}
	for _, fn := range snapshot(&h.hooks.mu, h.hooks.beforeProviderRequest) {
		fn(ctx, &req)
	}
	h.noteRequest(req, active)
	return req, nil
}

// streamAssistant runs one model call, emitting message_start, one
// message_update per delta and leaving message_end to recordMessage.
func (h *Harness) streamAssistant(ctx context.Context, req llm.Request) llm.Message {
	started := false
	msg := h.cfg.Streamer.Stream(ctx, req, func(ev llm.Event) {
		switch ev.Type {
		case llm.EventStart:
			if !started {
				started = true
				h.emit(Event{Type: EvMessageStart, Message: &llm.Message{Role: llm.RoleAssistant, Model: req.Model.ID, Provider: req.Model.Provider}})
			}
		case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
			if !started {
				started = true
				h.emit(Event{Type: EvMessageStart, Message: &llm.Message{Role: llm.RoleAssistant, Model: req.Model.ID, Provider: req.Model.Provider}})
			}
			kind := "text"
			switch ev.Type {
			case llm.EventThinkingDelta:
				kind = "thinking"
			case llm.EventToolCallDelta:
				kind = "toolcall"
			}
			h.emit(Event{Type: EvMessageUpdate, DeltaKind: kind, Delta: ev.Delta, ContentIndex: ev.ContentIndex})
		case llm.EventRetryStart:
			h.owner.setPhase(PhaseRetry)
			h.emit(Event{Type: EvRetryStart, Attempt: ev.Attempt, DelayMs: ev.DelayMs, Error: ev.Error})
		case llm.EventRetryEnd:
			h.owner.setPhase(PhaseTurn)
			h.emit(Event{Type: EvRetryEnd, Attempt: ev.Attempt, Error: ev.Error})
		}
	})
	if h.Phase() == PhaseRetry {
		h.owner.setPhase(PhaseTurn)
	}
	if !started {
		h.emit(Event{Type: EvMessageStart, Message: &llm.Message{Role: llm.RoleAssistant, Model: req.Model.ID, Provider: req.Model.Provider}})
	}
	if msg.Role == "" {
		msg.Role = llm.RoleAssistant
	}
	if msg.Timestamp == 0 {
		msg.Timestamp = h.now()
	}
	return msg
}

// overflowCount finds the request's size in a provider's context-length
// error ("... resulted in 47604 tokens", "prompt is too long: 212345
// tokens > 200000 maximum"): the first number followed by " tokens" that
// is not the window. 0 when there is none.
func overflowCount(msg string, window int) int {
	f := strings.Fields(msg)
	for i := 0; i+1 < len(f); i++ {
		if !strings.HasPrefix(f[i+1], "tokens") {
			continue
		}
		n, err := strconv.Atoi(strings.Trim(f[i], "(),.:"))
		if err == nil && n > window {
			return n
		}
	}
	return 0
}

func isContextOverflow(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"context length", "context_length_exceeded", "maximum context", "context window", "too many tokens", "prompt is too long", "reduce the length"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// cutOffText is the tool error of a call whose arguments were cut off.
func cutOffText(name string) string {
	return fmt.Sprintf("Tool call not run: the %s call was cut off (the response ended before its arguments were complete, for example at the output token limit), so it was not executed. Repeat it with smaller arguments: split a large write into a smaller file first and append the rest with edit, or make several smaller calls.", name)
}

// cancelledResult is the result of a call not run because the run ended
// first (reason aborted or client_gone) or the model's response ended with
// an error (reason error).
func cancelledResult(reason EndReason) tools.Result {
	text := cancelledText
	if reason == EndError {
		text = notRunText
	}
	return (&refusal{text: text, outcome: OutcomeInterrupted, reason: string(reason)}).result()
}

// executeTools runs the calls of one assistant message in order. It returns
// true when a hook asked to end the run.
func (h *Harness) executeTools(ctx context.Context, x *host, calls []llm.ContentBlock) (terminate bool) {
	byName := tools.ByName(h.activeTools())
	for i := 0; i < len(calls); i++ {
		// Consecutive subagent calls run at the same time (subagent.go).
		if n := subagentRun(calls[i:], byName); n > 1 {
			terminate = h.executeConcurrent(ctx, x, byName, calls[i:i+n]) || terminate
			i += n - 1
			continue
		}
		c := calls[i]
		if ctx.Err() != nil {
			h.recordToolResult(context.Background(), c, cancelledResult(endReasonOf(ctx)))
			continue
		}
		call := tools.Call{ID: c.ID, Name: c.Name, Args: c.Arguments, CutOff: c.CutOff}
		if len(call.Args) == 0 {
			call.Args = json.RawMessage("{}")
		}
		h.emit(Event{Type: EvToolStart, ToolCallID: c.ID, ToolName: c.Name, Args: call.Args})
		res, term := h.runOneTool(ctx, x, byName, call)
		terminate = terminate || term
		h.recordToolResult(context.Background(), c, res)
	}
	return terminate
}

func (h *Harness) runOneTool(ctx context.Context, x *host, byName map[string]tools.Tool, call tools.Call) (tools.Result, bool) {
	if call.CutOff {
		return errorResult(cutOffText(call.Name)), false
	}
	t, ok := byName[call.Name]
	if !ok {
		return errorResult(fmt.Sprintf("Tool %q is not available in this mode. Available tools: %s.", call.Name, strings.Join(h.toolNames(), ", "))), false
	}
	if !json.Valid(call.Args) {
		return errorResult(fmt.Sprintf("Invalid arguments for %s: not valid JSON: %s", call.Name, textcut.Head(string(call.Args), 200))), false
	}
	if v := h.runToolCallHooks(ctx, call); v.Block {
		reason := v.Reason
		if reason == "" {
			reason = "blocked by a hook"
		}
		return declined("Tool call blocked: "+reason, reason).result(), false
	}
	refused, rv := h.approve(ctx, t, call, describeCall(call))
	if refused != nil {
		return refused.result(), false
	}
	call.Reviewed = rv
	h.noteToolRuns(t) // checkpoints.go: may it change files?
	var e env.Env = h.cfg.Env
	if t.Category() == tools.CategoryExecute {
		e = h.commandEnv() // under the sandbox of the current mode
	}
	watch := h.diagPrepare(ctx, call) // diagnostics.go
	res := t.Execute(ctx, call, tools.Exec{
		Env:  e,
		Host: x,
		Jobs: h.toolJobs(call),
		Update: func(partial string) {
			h.emit(Event{Type: EvToolUpdate, ToolCallID: call.ID, ToolName: call.Name, Output: partial})
		},
	})
	if watch != nil {
		res = h.diagFinish(ctx, watch, res)
	}
	return h.runToolResultHooks(ctx, call, res)
}

func (h *Harness) toolNames() []string {
	var out []string
	for _, t := range h.activeTools() {
		out = append(out, t.Definition().Name)
	}
	return out
}

func errorResult(text string) tools.Result {
	return tools.Result{Content: []llm.ContentBlock{llm.TextBlock(text)}, IsError: true}
}

// describeCall renders a call for an approval prompt.
func describeCall(call tools.Call) string {
	var args map[string]any
	_ = json.Unmarshal(call.Args, &args)
	switch call.Name {
	case "bash":
		if c, ok := args["command"].(string); ok {
			return "$ " + c
		}
	case "write":
		if p, ok := args["path"].(string); ok {
			content, _ := args["content"].(string)
			return fmt.Sprintf("write %s (%d lines)", p, strings.Count(content, "\n")+1)
		}
	case "edit":
		if p, ok := args["path"].(string); ok {
			n := 1
			if e, ok := args["edits"].([]any); ok {
				n = len(e)
			}
			return fmt.Sprintf("edit %s (%d change(s))", p, n)
		}
	}
	return call.Name + " " + textcut.Head(string(call.Args), 300)
}

// recordToolResult records a tool result message and emits
// tool_execution_end with the display-safe output.
func (h *Harness) recordToolResult(ctx context.Context, c llm.ContentBlock, res tools.Result) {
	h.trackSpill(spillOf(res))
	res = withErrorOutcome(res)
	outcome, reason := outcomeDetails(res.Details)
	m := llm.Message{Role: llm.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name, Content: res.Content, Details: res.Details, IsError: res.IsError, Timestamp: h.now()}
	if m.Content == nil {
		m.Content = []llm.ContentBlock{llm.TextBlock("")}
	}
	display := res.Display
	if display == "" {
		display = m.Text()
	}
	h.emit(Event{Type: EvToolEnd, ToolCallID: c.ID, ToolName: c.Name, Output: display, IsError: res.IsError, Diff: res.Diff, Path: res.Path, Diagnostics: res.Diagnostics,
		Outcome: outcome, Reason: reason})
	if err := h.recordMessage(ctx, m); err != nil {
		h.fail(fmt.Errorf("record tool result: %w", err))
	}
}

// handOverToBuild switches an approved plan's session to Build mode once
// the run is quiet, then starts the build run. The run owner handed it the
// harness; it hands it on to the build run (or back, on a failure).
func (h *Harness) handOverToBuild(p tools.Plan) {
	ctx := context.Background()
	if _, err := h.switchMode(ctx, "build"); err != nil {
		h.owner.release()
		h.fail(fmt.Errorf("plan approved, but switching to build mode failed: %w", err))
		return
	}
	model, err := h.Model(ctx)
	if err == nil {
		err = h.owner.handToRun(model, []llm.Message{PlanHandoverMessage(p.Title, h.now())})
	} else {
		h.owner.release()
	}
	if err != nil {
		h.fail(fmt.Errorf("plan approved, but the build run could not start: %w", err))
	}
}
