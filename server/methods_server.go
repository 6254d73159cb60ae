package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/attach"
	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/outbox"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/tools"
)

// ModelEntry is one model of model/list (the wire type itself: the
// registry's view is converted by the caller of AgentOptions.Models).
type ModelEntry = protocol.Model

// AgentOptions wire a harness behind the protocol.
type AgentOptions struct {
	Name, Version string
	Logger        *slog.Logger
	// NewHarness builds the harness at initialize, for the client's root
	// folder ("" when it sent none). buffers is non-nil when the client
	// serves its editor buffers (fs/readTextFile): wrap the Env with it;
	// writes is non-nil when it takes writes (fs/writeTextFile).
	NewHarness func(cwd string, buffers env.BufferReader, writes env.BufferWriter) (*harness.Harness, error)
	// Models lists the configured models for model/list.
	Models func(ctx context.Context) ([]ModelEntry, error)
	// SessionsRoot is where sessions live (session/list).
	SessionsRoot string
	// DisplayClock is the display schedulers' clock (tests); nil = wall clock.
	DisplayClock display.Clock
	// Masker masks secrets in every outgoing message (nil: the process
	// environment's secrets).
	Masker rpc.Masker
}

// agent is the state shared by the method handlers of one server: its
// options and, per connection, the attachment initialize made. One server
// may serve several connections (Serve once per connection); each has its
// own harness, and closing one never touches another's.
type agent struct {
	opts  AgentOptions
	mu    sync.Mutex
	conns map[*rpc.Client]*attachment
	push  Pusher
	att   *attachState // the sessions this process serves to others, and the ones it is attached to
}

// attachment is what one connection's initialize set up: the harness and
// what feeds its events to the connection's display and progress.
type attachment struct {
	h      *harness.Harness
	unsub  func()
	cancel context.CancelFunc
	shared bool // an attached connection: the harness belongs to another connection
}

// NewAgentServer returns a Server serving every method of docs/protocol.md
// over a harness that it builds at initialize.
func NewAgentServer(o AgentOptions) *rpc.Server {
	a := &agent{opts: o, conns: map[*rpc.Client]*attachment{}, att: newAttachState(), push: Pusher{Clock: o.DisplayClock}}
	s := rpc.NewServer(rpc.Options{
		Route:    a.route,
		OnResult: a.result,
		Masker:   o.Masker,
		Name:     o.Name, Version: o.Version, Logger: o.Logger,
		OnInitialize: a.initialize,
		OnShutdown: func(ctx context.Context, c *rpc.Client) error {
			if h := a.harness(c); h != nil {
				a.beforeShutdown(c)
				h.Abort()
			}
			return nil
		},
		OnDisconnect: a.close,
	})
	a.push.Register(s)
	a.register(s)
	return s
}

// harness returns c's harness (nil before initialize).
func (a *agent) harness(c *rpc.Client) *harness.Harness {
	a.mu.Lock()
	defer a.mu.Unlock()
	if at := a.conns[c]; at != nil {
		return at.h
	}
	return nil
}

// close ends c's attachment: its event feed and its harness.
func (a *agent) close(c *rpc.Client) {
	a.mu.Lock()
	at := a.conns[c]
	delete(a.conns, c)
	a.mu.Unlock()
	a.closeProxy(c)
	if at == nil {
		return
	}
	at.cancel()
	at.unsub()
	keep, after := a.leaveHub(c, at)
	if keep {
		return
	}
	if err := at.h.Close(); err != nil && a.opts.Logger != nil {
		a.opts.Logger.Warn("closing harness", "err", err)
	}
	after()
}

func (a *agent) initialize(ctx context.Context, c *rpc.Client, p rpc.InitializeParams) error {
	opts, err := p.Options()
	if err != nil {
		return err
	}
	if sc := attach.ConnFrom(ctx); sc != nil {
		return a.initShared(ctx, c, p, sc)
	}
	var buffers env.BufferReader
	if p.Capabilities.FS.ReadTextFile {
		buffers = func(ctx context.Context, path string) (string, bool, error) {
			var resp *protocol.ReadTextFileResult
			if err := c.Call(ctx, "fs/readTextFile", protocol.ReadTextFileParams{Path: path}, &resp); err != nil {
				return "", false, err
			}
			if resp == nil {
				return "", false, nil
			}
			return resp.Text, true, nil
		}
	}
	h, err := a.opts.NewHarness(p.RootPath(), buffers, editorWriter(c))
	if err != nil {
		return &rpc.Error{Code: rpc.CodeInternalError, Message: fmt.Sprintf("starting the harness: %v", err)}
	}
	// The session first: a failure leaves nothing running (the client may
	// retry), and the display below is seeded once, from where it ends up.
	if opts.Model != "" {
		if _, err := h.SetModel(ctx, opts.Model); err != nil {
			c.Log(slog.LevelWarn, fmt.Sprintf("initializationOptions.model: %v", err))
		}
	}
	switch opts.Session {
	case "", "new":
	case "continue":
		err = a.continueRecent(ctx, h)
	default:
		_, err = h.OpenSession(ctx, opts.Session)
	}
	if locked := lockedBy(err); locked != nil {
		return a.attachAtInit(ctx, c, p, h, locked)
	}
	if err != nil {
		if cerr := h.Close(); cerr != nil && a.opts.Logger != nil {
			a.opts.Logger.Warn("closing harness", "err", cerr)
		}
		return mapErr(err)
	}
	return a.connect(ctx, c, p, h, false)
}

// connect feeds h's events to c: its own display reducer and scheduler,
// progress and harness/event, and c's share of the questions h asks.
// shared is true for a connection attached over the session's socket.
func (a *agent) connect(ctx context.Context, c *rpc.Client, p rpc.InitializeParams, h *harness.Harness, shared bool) error {
	// The display's input is the harness's events and only them: Attach
	// hands it the current state as events (the session with its recent
	// history, mode, model, usage, notices), then the live stream.
	r := display.NewReducer(display.ReducerOptions{})
	wctx, cancel := context.WithCancel(context.Background())
	prog := newProgressForwarder(wctx, c)
	unsub := h.Attach(ctx, func(ev harness.Event) {
		switch ev.Type {
		case harness.EvCompactionStart, harness.EvCompactionUpdate, harness.EvCompactionEnd, harness.EvSkills, harness.EvMemory:
			prog.add(ev)
		case harness.EvNotice:
			c.Log(slog.LevelWarn, ev.Notice)
		}
		r.Apply(ev)
	})
	a.mu.Lock()
	a.conns[c] = &attachment{h: h, unsub: unsub, cancel: cancel, shared: shared}
	a.mu.Unlock()
	a.joinHub(c, h)
	if p.ProcessID > 0 {
		// The editor died without closing our stdin: stop serving (the run
		// and its process groups are killed on disconnect).
		go rpc.WatchParent(wctx, p.ProcessID, func() {
			c.Log(slog.LevelWarn, "parent process is gone; exiting")
			c.Close()
		})
	}
	if !shared { // an attached connection shares the owner's watch
		if err := h.WatchSkills(wctx); err != nil && a.opts.Logger != nil {
			a.opts.Logger.Warn("watching skills", "err", err)
		}
	}

	a.push.attachDisplay(c, r, a.takeDisplayAfter(c))
	AttachEvents(c, h)
	logMCPDiagnostics(c, h)
	return nil
}

// progressForwarder sends $/progress and skills/changed notifications in
// order without blocking the harness, and without dropping any: a $/progress
// end always follows its begin.
type progressForwarder struct {
	q *outbox.Outbox
}

func newProgressForwarder(ctx context.Context, c *rpc.Client) *progressForwarder {
	p := &progressForwarder{q: outbox.New(outbox.Options{MergeAt: math.MaxInt})}
	go func() {
		n := 0
		token := ""
		for {
			items, _, open := p.q.Take(ctx)
			if !open {
				return
			}
			for _, it := range items {
				ev, _ := it.Params.(harness.Event)
				switch ev.Type {
				case harness.EvCompactionStart:
					n++
					token = fmt.Sprintf("compaction-%d", n)
					title := "Compacting context"
					if ev.Reason == "branch_summary" {
						title = "Summarizing branch"
					}
					_ = c.Progress(token, protocol.WorkProgress{Kind: "begin", Title: title, Message: ev.Reason, Percentage: new(int)})
				case harness.EvCompactionUpdate:
					_ = c.Progress(token, protocol.WorkProgress{Kind: "report", Message: ev.Summary})
				case harness.EvCompactionEnd:
					msg := "done"
					if ev.Error != "" {
						msg = "failed: " + ev.Error
					}
					_ = c.Progress(token, protocol.WorkProgress{Kind: "end", Message: msg})
				case harness.EvSkills:
					_ = c.Notify("skills/changed", struct{}{})
				case harness.EvMemory:
					memoryProgress(c, ev)
				}
			}
		}
	}()
	return p
}

// add queues ev; nothing merges (every item is a Keep).
func (p *progressForwarder) add(ev harness.Event) { p.q.Note(string(ev.Type), ev) }

// clientUI asks the client through server→client requests, when it
// declared it can answer them.
type clientUI struct{ c attach.Caller }

// call is Client.Call, with a capability the client did not declare
// reported as tools.ErrNoUI (the harness then falls back by policy).
func (u clientUI) call(ctx context.Context, method string, params, result any) error {
	err := u.c.Call(ctx, method, params, result)
	if errors.Is(err, rpc.ErrNoCapability) {
		return tools.ErrNoUI
	}
	return err
}

func (u clientUI) RequestApproval(ctx context.Context, req harness.ApprovalRequest) (harness.Decision, error) {
	var resp protocol.ApprovalResult
	params := toApprovalParams(req)
	if err := u.call(ctx, "ui/requestApproval", params, &resp); err != nil {
		if errors.Is(err, tools.ErrNoUI) {
			return "", err
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// A reply we cannot read declines the call.
		return harness.DecisionDecline, nil
	}
	switch resp.Decision {
	case protocol.DecisionApprove:
		return harness.DecisionApprove, nil
	case protocol.DecisionDecline:
		return harness.DecisionDecline, nil
	case protocol.DecisionAlwaysAllowTool:
		return harness.DecisionAlwaysAllowTool, nil
	case protocol.DecisionAlwaysAllowCategory:
		return harness.DecisionAlwaysAllowCategory, nil
	case protocol.DecisionAlwaysAllowPath:
		return harness.DecisionAlwaysAllowPath, nil
	default:
		u.c.Log(slog.LevelWarn, fmt.Sprintf("ui/requestApproval: unknown decision %q: the call is declined", resp.Decision))
		return harness.DecisionDecline, nil
	}
}

func (u clientUI) AskQuestion(ctx context.Context, q tools.Question) (string, error) {
	var resp protocol.QuestionResult
	params := protocol.QuestionParams{ID: q.ID, Question: q.Question, Options: q.Options, SelectionMode: q.SelectionMode}
	if err := u.call(ctx, "ui/askQuestion", params, &resp); err != nil {
		return "", fmt.Errorf("ui/askQuestion: %w", err)
	}
	switch {
	case resp.Cancelled:
		return "", errors.New("the user declined to answer")
	case resp.Answers != nil:
		return strings.Join(resp.Answers, ", "), nil
	case resp.Answer != nil:
		return *resp.Answer, nil
	}
	return "", errors.New("the client's answer had neither answer nor answers")
}

func (u clientUI) ApprovePlan(ctx context.Context, p tools.Plan) (tools.PlanVerdict, error) {
	var resp protocol.PlanResult
	if err := u.call(ctx, "ui/approvePlan", protocol.PlanParams{ID: p.ID, Title: p.Title, Plan: p.Plan}, &resp); err != nil {
		return tools.PlanVerdict{}, fmt.Errorf("ui/approvePlan: %w", err)
	}
	if resp.Approved == nil {
		return tools.PlanVerdict{Approved: false, Feedback: "the client's answer did not say approved or not"}, nil
	}
	return tools.PlanVerdict{Approved: *resp.Approved, Feedback: resp.Feedback}, nil
}

// mapErr turns harness and session errors into protocol errors
// (harness.Classify).
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	cl := harness.Classify(err)
	switch cl.Kind {
	case harness.KindBusy:
		return rpc.ErrBusy(cl.Phase)
	case harness.KindLocked:
		e := rpc.ErrLocked(cl.PID)
		e.Message = err.Error()
		return e
	case harness.KindNotSession:
		return &rpc.Error{Code: rpc.CodeNotSession, Message: err.Error()}
	case harness.KindNotFound:
		e := rpc.ErrNotFound("")
		e.Message = err.Error()
		return e
	case harness.KindNoModel:
		// The registry's message already says how to configure a model.
		msg := err.Error()
		hint := strings.TrimPrefix(msg, harness.ErrNoModel.Error()+": ")
		if hint == msg || hint == "" {
			hint = "configure a model in $PI_LSP_MODELS or ~/.pi/agent/models.json, or set a provider key such as OPENAI_API_KEY; see docs/models.md"
		}
		e := rpc.ErrNoModel(hint)
		e.Message = msg
		return e
	case harness.KindInvalid:
		return rpc.ErrInvalidParams(err.Error())
	case harness.KindCancelled:
		return &rpc.Error{Code: rpc.CodeRequestCancelled, Message: "request cancelled"}
	}
	return &rpc.Error{Code: rpc.CodeInternalError, Message: err.Error()}
}

// need returns the harness or the not-initialized error.
func (a *agent) need(c *rpc.Client) (*harness.Harness, error) {
	h := a.harness(c)
	if h == nil {
		return nil, &rpc.Error{Code: rpc.CodeServerNotInitialized, Message: "server not initialized"}
	}
	return h, nil
}
