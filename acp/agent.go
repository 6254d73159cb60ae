package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Model is one entry of the model config option.
type Model struct {
	Ref  string // provider/id
	Name string
}

// Options wire the ACP agent.
type Options struct {
	Name, Version string
	Logger        *slog.Logger
	// NewHarness builds the harness of one ACP session for cwd; wrap, when
	// non-nil, must be applied to its local Env (it routes reads and writes
	// through the client).
	NewHarness func(cwd string, wrap func(env.Env) env.Env) (*harness.Harness, error)
	// Models lists the configured models for the model config option.
	Models func(ctx context.Context) ([]Model, error)
	// SessionsRoot is where sessions live (session/list, session/load).
	SessionsRoot string
	// Environ feeds the egress redactor (os.Environ form).
	Environ []string
	// Debounce and Cap are the coalescing windows of tool output, and of
	// chunk text once it is worth its envelope (the display scheduler's
	// 250 ms and 500 ms when zero).
	Debounce, Cap time.Duration
	// Worth is how many times its line's envelope chunk text must weigh
	// before Debounce and Cap apply (DefaultWorth when zero); MaxLatency
	// bounds how long text waits for that (DefaultMaxLatency when zero).
	Worth      float64
	MaxLatency time.Duration
}

// agent implements the SDK's Agent interface over one harness per session.
type agent struct {
	opts Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	ctx  context.Context // ends when the connection does
	wire *wireOrder
	hold holder // the egress's redactor: each session's chunk buffer holds unsafe tails by it

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	sessions map[sdk.SessionId]*sess

	// announced holds the sessions whose session/new answer has not gone
	// out yet: their first updates wait for it (a client drops updates of
	// a session it does not know yet).
	announceMu sync.Mutex
	announced  map[string]chan struct{}
}

// Serve runs the ACP agent on in/out until in ends or ctx is done. out
// carries only protocol lines.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Debounce <= 0 {
		o.Debounce = display.DefaultDebounce
	}
	if o.Cap <= 0 {
		o.Cap = display.DefaultCap
	}
	if o.Worth <= 0 {
		o.Worth = DefaultWorth
	}
	if o.MaxLatency <= 0 {
		o.MaxLatency = DefaultMaxLatency
	}
	if o.SessionsRoot == "" {
		o.SessionsRoot = session.DefaultRoot()
	}
	eg := newEgress(out, tools.NewRedactor(o.Environ))
	pr, pw := io.Pipe()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &agent{opts: o, log: o.Logger, ctx: cctx, wire: newWireOrder(), sessions: map[sdk.SessionId]*sess{}, announced: map[string]chan struct{}{}}
	eg.written = a.written
	a.hold = eg.redact
	a.conn = sdk.NewAgentSideConnection(a, eg, pr)
	a.conn.SetLogger(o.Logger)
	// Input starts flowing only now: handlers read a.conn.
	filterErr := make(chan error, 1)
	go func() {
		err := filterInput(in, pw, eg, a.wire.observe)
		_ = pw.Close()
		filterErr <- err
	}()
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	_ = pr.Close()
	a.closeAll()
	select {
	case err := <-filterErr:
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			return fmt.Errorf("acp: reading input: %w", err)
		}
	default:
	}
	return ctx.Err()
}

func (a *agent) closeAll() {
	a.mu.Lock()
	all := make([]*sess, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.sessions = map[sdk.SessionId]*sess{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

func (a *agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

// Initialize answers the capabilities: load, list, resume, close, images,
// embedded context, and pi-lsp's prompt queueing and steering.
func (a *agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: a.opts.Name, Version: a.opts.Version},
		AuthMethods:     []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{}, Close: &sdk.SessionCloseCapabilities{},
			},
			Meta: map[string]any{"pi-lsp": map[string]any{"promptQueueing": true, "steering": true}},
			// session/new's http and sse servers are started (acp/mcp.go),
			// with OAuth logins shown as a message with the link.
			McpCapabilities: sdk.McpCapabilities{Http: true, Sse: true},
			Auth:            sdk.AgentAuthCapabilities{Logout: &sdk.LogoutCapabilities{}},
		},
	}, nil
}

// Authenticate: pi-lsp reads provider keys from the environment and
// auth.json; there is nothing to authenticate over ACP.
func (a *agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// Logout has nothing to forget (see Authenticate).
func (a *agent) Logout(ctx context.Context, p sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	return sdk.LogoutResponse{}, nil
}

func (a *agent) get(id sdk.SessionId) (*sess, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, &sdk.RequestError{Code: -32002, Message: fmt.Sprintf("session %q is not open (session/new, session/load or session/resume first)", id), Data: map[string]any{"sessionId": id}}
	}
	return s, nil
}

// absCwd checks the cwd a client sent.
func absCwd(cwd string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return wd, nil
	}
	if !filepath.IsAbs(cwd) {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q must be an absolute path", cwd)})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not a directory", cwd)})
	}
	return filepath.Clean(cwd), nil
}

// NewSession starts a pi session in cwd; its id is the pi session id.
func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	cwd, err := absCwd(p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.newSess(cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	info, err := s.h.NewSession(ctx, cwd)
	if err != nil {
		s.close()
		return sdk.NewSessionResponse{}, mapErr(err)
	}
	answered := a.awaitAnswer(info.ID)
	s.attach(sdk.SessionId(info.ID))
	modes, opts := s.modeState(), s.configOptions(ctx)
	s.push(item{fn: func() {
		// available_commands_update follows the answer that names the session.
		select {
		case <-answered:
		case <-time.After(2 * time.Second):
		}
		s.sendCommands(context.Background())
	}})
	return sdk.NewSessionResponse{SessionId: s.id, Modes: modes, ConfigOptions: opts}, nil
}

// awaitAnswer returns a channel closed once an answer naming session id
// has been written.
func (a *agent) awaitAnswer(id string) <-chan struct{} {
	ch := make(chan struct{})
	a.announceMu.Lock()
	a.announced[id] = ch
	a.announceMu.Unlock()
	return ch
}

// written is the egress hook: it releases the sessions a session/new
// answer just named.
func (a *agent) written(line []byte) {
	a.announceMu.Lock()
	defer a.announceMu.Unlock()
	if len(a.announced) == 0 || !bytes.Contains(line, []byte(`"result"`)) {
		return
	}
	for id, ch := range a.announced {
		if bytes.Contains(line, []byte(`"sessionId":"`+id+`"`)) {
			close(ch)
			delete(a.announced, id)
		}
	}
}

// findSession returns the path of the session with id, looking in cwd's
// directory first.
func (a *agent) findSession(ctx context.Context, id, cwd string) (string, error) {
	if list, err := session.List(ctx, a.opts.SessionsRoot, cwd); err == nil {
		for _, i := range list {
			if i.ID == id {
				return i.Path, nil
			}
		}
	}
	list, err := session.ListAll(ctx, a.opts.SessionsRoot)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, i := range list {
		if i.ID == id {
			return i.Path, nil
		}
	}
	return "", &sdk.RequestError{Code: -32002, Message: fmt.Sprintf("no session %q under %s", id, a.opts.SessionsRoot), Data: map[string]any{"sessionId": id}}
}

// open opens the session id (or returns it when this connection has it).
func (a *agent) open(ctx context.Context, id sdk.SessionId, cwdIn string, mcp []sdk.McpServer) (*sess, error) {
	if s, err := a.get(id); err == nil {
		return s, nil
	}
	cwd, err := absCwd(cwdIn)
	if err != nil {
		return nil, err
	}
	path, err := a.findSession(ctx, string(id), cwd)
	if err != nil {
		return nil, err
	}
	s, err := a.newSess(cwd, mcp)
	if err != nil {
		return nil, err
	}
	if _, err := s.h.OpenSession(ctx, path); err != nil {
		s.close()
		return nil, mapErr(err)
	}
	s.attach(id)
	return s, nil
}

// LoadSession opens a session and replays its branch as session/update
// notifications before answering.
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	s, err := a.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.do(ctx, func() { s.replay(context.Background()); s.sendCommands(context.Background()) }); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions(ctx)}, nil
}

// ResumeSession opens a session without replaying it.
func (a *agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	s, err := a.open(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	if err := s.do(ctx, func() { s.sendCommands(context.Background()) }); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modeState(), ConfigOptions: s.configOptions(ctx)}, nil
}

// CloseSession cancels the session's work and frees it.
func (a *agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := a.get(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	a.mu.Lock()
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	s.close()
	return sdk.CloseSessionResponse{}, nil
}

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// ListSessions lists the sessions of cwd (all when none is given), newest
// first, with their names (or first messages) as titles.
func (a *agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	var list []session.Info
	var err error
	if p.Cwd != nil && *p.Cwd != "" {
		list, err = session.List(ctx, a.opts.SessionsRoot, filepath.Clean(*p.Cwd))
	} else {
		list, err = session.ListAll(ctx, a.opts.SessionsRoot)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return sdk.ListSessionsResponse{}, mapErr(err)
	}
	start := 0
	if p.Cursor != nil && *p.Cursor != "" {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cursor %q is not one this agent gave", *p.Cursor)})
		}
		start = min(n, len(list))
	}
	end := min(start+listPage, len(list))
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, i := range list[start:end] {
		title := i.Name
		if title == "" {
			title = firstLine(i.FirstMessage, 80)
		}
		si := sdk.SessionInfo{SessionId: sdk.SessionId(i.ID), Cwd: i.Cwd, UpdatedAt: sdk.Ptr(i.Modified.UTC().Format(time.RFC3339))}
		if title != "" {
			si.Title = sdk.Ptr(title)
		}
		out.Sessions = append(out.Sessions, si)
	}
	if end < len(list) {
		out.NextCursor = sdk.Ptr(strconv.Itoa(end))
	}
	return out, nil
}

// Cancel aborts the session's run and answers every queued prompt
// cancelled.
func (a *agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	s, err := a.get(p.SessionId)
	if err != nil {
		return err
	}
	s.cancel()
	return nil
}

// SetSessionMode switches Build, Plan or Fast (or a configured mode).
func (a *agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.get(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if _, err := s.h.SetMode(ctx, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, mapErr(err)
	}
	return sdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the model or the thinking level.
func (a *agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "pi-lsp's config options (model, thinking) take a value id"})
	}
	v := p.ValueId
	s, err := a.get(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case configModel:
		_, err = s.h.SetModel(ctx, string(v.Value))
	case configThinking:
		err = s.h.SetThinking(ctx, thinkingLevel(string(v.Value)))
	default:
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q (want %q or %q)", v.ConfigId, configModel, configThinking)})
	}
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, mapErr(err)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(ctx)}, nil
}

// mapErr turns harness and session errors into JSON-RPC errors.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	cl := harness.Classify(err)
	switch cl.Kind {
	case harness.KindBusy:
		return &sdk.RequestError{Code: -32001, Message: err.Error(), Data: map[string]any{"phase": cl.Phase}}
	case harness.KindLocked:
		return &sdk.RequestError{Code: -32003, Message: err.Error(), Data: map[string]any{"pid": cl.PID}}
	case harness.KindNotFound:
		return &sdk.RequestError{Code: -32002, Message: err.Error()}
	case harness.KindInvalid:
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	case harness.KindCancelled:
		return sdk.NewRequestCancelled(map[string]any{"error": err.Error()})
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}
