package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/outbox"
)

// sess is one ACP session: a harness, the worker that turns its events
// into session/update notifications, and the queue of prompts waiting for
// their turns.
type sess struct {
	a   *agent
	id  sdk.SessionId
	h   *harness.Harness
	cwd string
	// mcp are the MCP servers the client gave in session/new or load; they
	// are kept for the MCP client (DESIGN.md §6) to start.
	mcp   []sdk.McpServer
	unsub func()
	stop  context.CancelFunc
	files *fileLog

	// out is the session's queue of session/update notifications (and of
	// the answers and barriers that must follow them), drained in order by
	// write: a slow client merges message and thought chunks per stream,
	// and loses nothing else.
	out   *outbox.Outbox
	wrote chan struct{} // write returned

	qmu    sync.Mutex
	q      []item
	wake   chan struct{}
	closed bool
	done   chan struct{} // the worker returned

	pmu     sync.Mutex
	prompts []*pending // the head is the running turn

	// Worker-only state.
	chunks     chunkBuf  // streamed text and thinking, coalesced, unsafe tails held (chunks.go)
	first      time.Time // the first and last text waiting in buf
	last       time.Time
	toolFirst  time.Time // the first and last tool output waiting in toolOut
	toolLast   time.Time
	co         coalescer
	toolOut    map[string]string // latest partial output not yet sent, by tool call
	toolOrder  []string
	childText  map[string]string // a subagent's streamed text, by the parent's tool call
	tools      map[string]*toolInfo
	lastErr    string
	lastMode   string
	lastConfig string
	usage      [2]int // used, size last sent
	tokensNow  *harness.Tokens
	turnBase   harness.Tokens // cumulative tokens when the last turn ended
	titled     bool

	titleCheck atomic.Bool // the first prompt looked whether the session needs a title

	curMu   sync.Mutex
	curTool map[string]string // tool name -> id of its latest call, set in event order
}

// item is one unit of the worker's queue: an event, or a function to run
// in order with the events (replay, barriers, answers).
type item struct {
	ev harness.Event
	fn func()
}

// pending is a prompt waiting for (or running) its turn.
type pending struct {
	text   string
	blocks []sdk.ContentBlock
	seq    uint64            // place in the wire order (0: not from the wire)
	done   chan promptResult // nil: a turn started by steering, answered to nobody
}

type promptResult struct {
	stop  sdk.StopReason
	usage *sdk.Usage
	err   error
}

func (a *agent) newSess(cwd string, mcp []sdk.McpServer) (*sess, error) {
	s := &sess{a: a, cwd: cwd, mcp: mcp, wake: make(chan struct{}, 1), done: make(chan struct{}),
		out: outbox.New(outbox.Options{}), wrote: make(chan struct{}),
		toolOut: map[string]string{}, tools: map[string]*toolInfo{}, files: newFileLog(), curTool: map[string]string{}, childText: map[string]string{}}
	h, err := a.opts.NewHarness(cwd, s.wrapEnv)
	if err != nil {
		return nil, &sdk.RequestError{Code: -32603, Message: fmt.Sprintf("starting the harness: %v", err)}
	}
	s.h = h
	useSessionMCP(h, mcp)
	return s, nil
}

// attach registers the session under id and starts its worker.
func (s *sess) attach(id sdk.SessionId) {
	s.id = id
	s.chunks.hold = s.a.hold
	s.co = coalescer{debounce: s.a.opts.Debounce, cap: s.a.opts.Cap, maxLatency: s.a.opts.MaxLatency,
		worth: int(float64(chunkEnvelope(id)) * s.a.opts.Worth)}
	ctx, cancel := context.WithCancel(s.a.ctx)
	s.stop = cancel
	s.turnBase = s.h.State(ctx).Tokens
	s.unsub = s.h.Subscribe(func(ev harness.Event) {
		if ev.Type == harness.EvToolStart {
			s.curMu.Lock()
			s.curTool[ev.ToolName] = ev.ToolCallID
			s.curMu.Unlock()
		}
		s.push(item{ev: ev})
	})
	s.h.SetUI(permissionUI{s})
	if err := s.h.WatchSkills(ctx); err != nil {
		s.a.log.Warn("watching skills", "err", err)
	}
	go s.loop(ctx)
	go s.write()
	s.a.mu.Lock()
	s.a.sessions[id] = s
	s.a.mu.Unlock()
}

func (s *sess) close() {
	s.h.Abort()
	s.failQueued(sdk.StopReasonCancelled)
	if s.unsub != nil {
		s.unsub()
	}
	if err := s.h.Close(); err != nil {
		s.a.log.Warn("closing harness", "err", err)
	}
	s.qmu.Lock()
	wasClosed := s.closed
	s.closed = true
	s.qmu.Unlock()
	s.signal()
	if s.stop != nil {
		s.stop()
		if !wasClosed {
			<-s.done
		}
	}
	s.out.Close() // write sends what the worker queued, then returns
	if s.stop != nil && !wasClosed {
		<-s.wrote
	}
	// A turn cut short by the close answers cancelled.
	s.pmu.Lock()
	ps := s.prompts
	s.prompts = nil
	s.pmu.Unlock()
	for _, p := range ps {
		s.answer(p, promptResult{stop: sdk.StopReasonCancelled})
	}
}

// answer answers p's session/prompt with r, after every update queued so
// far is written.
func (s *sess) answer(p *pending, r promptResult) {
	if p.done != nil {
		s.after(func() { p.done <- r })
	}
}

// after runs fn on the writer once everything queued before it is written
// (at once when the session's queue is closed).
func (s *sess) after(fn func()) {
	if !s.out.Note("", fn) {
		fn()
	}
}

func (s *sess) push(it item) {
	s.qmu.Lock()
	if s.closed {
		s.qmu.Unlock()
		return
	}
	s.q = append(s.q, it)
	s.qmu.Unlock()
	s.signal()
}

func (s *sess) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// do runs fn on the worker, after everything queued before it, and waits
// until the updates it queued are written.
func (s *sess) do(ctx context.Context, fn func()) error {
	ran := make(chan struct{})
	s.push(item{fn: func() { fn(); s.after(func() { close(ran) }) }})
	select {
	case <-ran:
		return nil
	case <-s.done:
		return sdk.NewInternalError(map[string]any{"error": "the session was closed"})
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loop is the worker: it folds events into updates, sending coalesced
// chunks when the coalescer says they are due (see coalescer.due) and tool
// output when it paused for Debounce or waited Cap since the first.
func (s *sess) loop(ctx context.Context) {
	defer close(s.done)
	var timer *time.Timer
	for {
		s.qmu.Lock()
		items := s.q
		s.q = nil
		closed := s.closed
		s.qmu.Unlock()
		for _, it := range items {
			if it.fn != nil {
				it.fn()
			} else {
				s.handle(it.ev)
			}
		}
		if closed {
			s.flush()
			return
		}
		if len(items) > 0 {
			continue
		}
		var due <-chan time.Time
		if dl, ok := s.deadline(); ok {
			wait := time.Until(dl)
			if wait <= 0 {
				s.flush()
				continue
			}
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			due = timer.C
		}
		select {
		case <-s.wake:
		case <-due:
		case <-ctx.Done():
			s.flush()
			return
		}
		if timer != nil && due != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// deadline is when what waits is due; ok is false when nothing waits.
func (s *sess) deadline() (time.Time, bool) {
	var d time.Time
	ok := false
	if !s.first.IsZero() {
		d, ok = s.co.due(s.chunks.len(), s.first, s.last), true
	}
	if !s.toolFirst.IsZero() {
		t := s.toolLast.Add(s.a.opts.Debounce)
		if c := s.toolFirst.Add(s.a.opts.Cap); c.Before(t) {
			t = c
		}
		if !ok || t.Before(d) {
			d, ok = t, true
		}
	}
	return d, ok
}

// methodUpdate is the ACP notification the session's queue carries.
const methodUpdate = "session/update"

// send queues u: a text chunk of the agent's message or thought as a
// Chunk of its stream (it may merge with the queued chunk of the same
// stream when the client is behind), anything else kept in order.
func (s *sess) send(u sdk.SessionUpdate) {
	if kind, text, ok := textChunk(u); ok {
		s.out.Chunk(methodUpdate, outbox.Stream{Kind: kind}, u, func(prev any) any {
			_, before, _ := textChunk(prev.(sdk.SessionUpdate))
			return chunkUpdate(kind, before+text)
		})
		return
	}
	s.out.Note(methodUpdate, u)
}

// write sends the session's queue to the client, in order, until it is
// closed and empty.
func (s *sess) write() {
	defer close(s.wrote)
	for {
		items, _, open := s.out.Take(context.Background())
		for _, it := range items {
			switch p := it.Params.(type) {
			case sdk.SessionUpdate:
				if err := s.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: s.id, Update: p}); err != nil {
					s.a.log.Debug("session/update", "err", err)
				}
			case func():
				p()
			}
		}
		if !open {
			return
		}
	}
}

// textChunk is the kind ("message" or "thought") and text of an agent
// text chunk; ok is false for any other update.
func textChunk(u sdk.SessionUpdate) (kind, text string, ok bool) {
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil && u.AgentMessageChunk.Meta == nil:
		return "message", u.AgentMessageChunk.Content.Text.Text, true
	case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil && u.AgentThoughtChunk.Meta == nil:
		return "thought", u.AgentThoughtChunk.Content.Text.Text, true
	}
	return "", "", false
}

// chunkUpdate is the text chunk of kind.
func chunkUpdate(kind, text string) sdk.SessionUpdate {
	if kind == "thought" {
		return sdk.UpdateAgentThoughtText(text)
	}
	return sdk.UpdateAgentMessageText(text)
}

// flush sends the coalesced text and tool output.
func (s *sess) flush() {
	s.first, s.toolFirst = time.Time{}, time.Time{}
	if kind, text := s.chunks.take(); text != "" {
		s.sendChunk(kind, text)
	}
	for _, id := range s.toolOrder {
		out, ok := s.toolOut[id]
		if !ok {
			continue
		}
		delete(s.toolOut, id)
		opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(tail(out)))})}
		if t := s.tools[id]; t != nil && !t.running {
			t.running = true
			opts = append(opts, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress))
		}
		s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), opts...))
	}
	s.toolOrder = s.toolOrder[:0]
}

// sendChunk sends streamed text of kind ("text" or "thinking").
func (s *sess) sendChunk(kind, text string) {
	if kind == "thinking" {
		s.send(sdk.UpdateAgentThoughtText(text))
	} else {
		s.send(sdk.UpdateAgentMessageText(text))
	}
}

// endChunks sends what is coalesced and the held tails: the message's
// streams ended.
func (s *sess) endChunks() {
	ended := s.chunks.release()
	s.flush()
	for _, kt := range ended {
		s.sendChunk(kt[0], kt[1])
	}
}

// batch notes coalesced text.
func (s *sess) batch() {
	now := time.Now()
	if s.first.IsZero() {
		s.first = now
	}
	s.last = now
}

// batchTool notes coalesced tool output.
func (s *sess) batchTool() {
	now := time.Now()
	if s.toolFirst.IsZero() {
		s.toolFirst = now
	}
	s.toolLast = now
}

// handle folds one harness event.
func (s *sess) handle(ev harness.Event) {
	switch ev.Type {
	case harness.EvMessageUpdate:
		if ev.DeltaKind != "text" && ev.DeltaKind != "thinking" {
			return
		}
		if s.chunks.kind != ev.DeltaKind && s.chunks.len() > 0 {
			s.flush() // the other stream's text goes first; its held tail stays
		}
		s.chunks.add(ev.DeltaKind, ev.Delta)
		s.batch()
	case harness.EvMessageEnd:
		s.endChunks()
	case harness.EvToolStart:
		s.flush()
		t := describeTool(ev.ToolName, ev.Args, s.cwd)
		s.tools[ev.ToolCallID] = &t
		s.send(t.start(ev.ToolCallID, ev.Args))
	case harness.EvApprovalDone:
		if t := s.tools[ev.ToolCallID]; t != nil && harness.Decision(ev.Decision).Allows() && !t.running {
			s.flush()
			t.running = true
			s.send(sdk.UpdateToolCall(sdk.ToolCallId(ev.ToolCallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
		}
	case harness.EvToolUpdate:
		if _, ok := s.toolOut[ev.ToolCallID]; !ok {
			s.toolOrder = append(s.toolOrder, ev.ToolCallID)
		}
		s.toolOut[ev.ToolCallID] = ev.Output
		s.batchTool()
	case harness.EvToolEnd:
		s.flush()
		t := s.tools[ev.ToolCallID]
		if t == nil {
			// A call that never started (its message was aborted): announce
			// it, so the client knows the id the update names.
			d := describeTool(ev.ToolName, nil, s.cwd)
			t = &d
			s.send(t.start(ev.ToolCallID, nil))
		}
		delete(s.tools, ev.ToolCallID)
		s.send(t.end(ev.ToolCallID, ev.Output, ev.IsError, s.files.take(ev.Path)))
	case harness.EvSubagentEvent:
		if ev.Subagent != nil && ev.Child != nil {
			s.handleChild(ev.Subagent, *ev.Child)
		}
	case harness.EvTasks:
		s.flush()
		s.send(planWithGoal(ev.Tasks, s.h.CurrentGoal()))
	case harness.EvGoal:
		if ev.Goal != nil { // a session without a goal sends no plan for it
			s.flush()
			s.send(planWithGoal(s.h.Tasks(), ev.Goal))
		}
	case harness.EvMode:
		s.sendMode(ev.Mode)
	case harness.EvModel, harness.EvThinking:
		s.sendConfig()
	case harness.EvUsage:
		s.tokensNow = ev.Tokens
	case harness.EvSessionInfo:
		s.flush()
		s.titled = true
		s.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: sdk.Ptr(ev.Name), UpdatedAt: sdk.Ptr(time.Now().UTC().Format(time.RFC3339))}})
	case harness.EvSkills:
		s.flush()
		s.sendCommands(context.Background())
	case harness.EvError:
		s.lastErr = ev.Error
	case harness.EvAgentEnd:
		s.endChunks()
		if ev.Tokens != nil {
			s.tokensNow = ev.Tokens
		}
		s.sendUsage()
		s.finishTurn(ev.Reason)
	}
}

func (s *sess) sendMode(mode string) {
	if mode == "" || mode == s.lastMode {
		return
	}
	s.flush()
	s.lastMode = mode
	s.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(mode)}})
}

func (s *sess) sendConfig() {
	opts := s.configOptions(context.Background())
	key := configKey(opts)
	if key == s.lastConfig {
		return
	}
	s.flush()
	s.lastConfig = key
	s.send(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
}

// sendUsage reports context use (tokens in the context against the
// window) when it changed.
func (s *sess) sendUsage() {
	t := s.tokensNow
	if t == nil || t.ContextWindow <= 0 {
		return
	}
	u := [2]int{t.ContextTokens, t.ContextWindow}
	if u == s.usage {
		return
	}
	s.usage = u
	s.send(sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Used: u[0], Size: u[1]}})
}

func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// tail keeps the last 16 KB of tool output.
func tail(s string) string {
	const max = 16 << 10
	if len(s) <= max {
		return s
	}
	cut := len(s) - max
	for cut < len(s) && !utf8Start(s[cut]) {
		cut++
	}
	return "…" + s[cut:]
}

// callOf is the id of the running call of tool name (ask_user and
// submit_plan run one at a time), or fallback.
func (s *sess) callOf(name, fallback string) string {
	s.curMu.Lock()
	defer s.curMu.Unlock()
	if id, ok := s.curTool[name]; ok {
		return id
	}
	return fallback
}

// handleChild folds one event of a subagent's run: its text streams as the
// content of the parent's subagent tool call, its own tool calls are tool
// calls tagged with the parent's in _meta (so a client can nest them).
func (s *sess) handleChild(ref *harness.SubagentRef, ev harness.Event) {
	switch ev.Type {
	case harness.EvMessageUpdate:
		if ev.DeltaKind != "text" {
			return
		}
		if _, ok := s.toolOut[ref.ToolCallID]; !ok {
			s.toolOrder = append(s.toolOrder, ref.ToolCallID)
		}
		s.childText[ref.ToolCallID] += ev.Delta
		// The subagent's text so far less its unsafe tail: the rest shows
		// with its next text or at its message's end.
		s.toolOut[ref.ToolCallID] = safeText(s.a.hold, s.childText[ref.ToolCallID])
		s.batchTool()
	case harness.EvMessageEnd:
		if text, ok := s.childText[ref.ToolCallID]; ok {
			if _, queued := s.toolOut[ref.ToolCallID]; !queued {
				s.toolOrder = append(s.toolOrder, ref.ToolCallID)
			}
			s.toolOut[ref.ToolCallID] = text
			s.batchTool()
		}
	case harness.EvToolStart:
		s.flush()
		t := describeTool(ev.ToolName, ev.Args, s.cwd)
		t.meta = subagentMeta(ref)
		id := childCallID(ref, ev.ToolCallID)
		s.tools[id] = &t
		s.send(t.start(id, ev.Args))
	case harness.EvApprovalDone:
		id := childCallID(ref, ev.ToolCallID)
		if t := s.tools[id]; t != nil && harness.Decision(ev.Decision).Allows() && !t.running {
			s.flush()
			t.running = true
			u := sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress))
			u.ToolCallUpdate.Meta = t.meta
			s.send(u)
		}
	case harness.EvToolEnd:
		id := childCallID(ref, ev.ToolCallID)
		t := s.tools[id]
		if t == nil {
			return
		}
		s.flush()
		delete(s.tools, id)
		s.send(t.end(id, ev.Output, ev.IsError, s.files.take(ev.Path)))
	case harness.EvAgentEnd:
		delete(s.childText, ref.ToolCallID)
	}
}
