package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 120 * time.Second
	DefaultLoginTimeout = 5 * time.Minute
	// maxRestarts is how many times a crashed stdio server is restarted
	// before it stays failed (until mcp/restart).
	maxRestarts    = 5
	firstBackoff   = 500 * time.Millisecond
	maxBackoffWait = 30 * time.Second
)

// State is a server's lifecycle state.
type State string

// States.
const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"
	// StateDisabled: a project server that is not approved (declined, or
	// nobody could be asked).
	StateDisabled State = "disabled"
	// StatePending: not started yet (servers start at the first turn).
	StatePending State = "pending"
	// StateNeedsLogin: an http or sse server answered 401 and nobody has
	// logged in yet (mcp/login); the session goes on without its tools.
	StateNeedsLogin State = "needs-login"
)

// Options configure a Manager.
type Options struct {
	// Cwd is the workspace root: stdio servers run there, and it keys the
	// approvals of project servers.
	Cwd string
	// Environ is the environment for ${VAR} expansion and for stdio
	// servers (default os.Environ()).
	Environ []string
	// ProjectFile and UserFile are .mcp.json and ~/.pi/agent/mcp.json (""
	// skips one; a missing file is no servers).
	ProjectFile, UserFile string
	// Session holds servers an ACP client passed (highest precedence).
	Session []ServerConfig
	// Trust remembers approvals of project servers (nil: ask every time).
	Trust *Trust
	// StartTimeout bounds the start of all servers (default 30 s);
	// CallTimeout one tool call (default 120 s; a server's "timeout"
	// overrides it).
	StartTimeout, CallTimeout time.Duration
	Logger                    *slog.Logger
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string
	// OnChange, if set, is called (without locks held) when a server's
	// state, tools, prompts or resources changed.
	OnChange func()
	// Tokens keeps the OAuth logins (nil: none is kept).
	Tokens *TokenStore
	// LoginTimeout bounds one browser login (default 5 minutes).
	LoginTimeout time.Duration
}

// Approver asks the user whether a project server may start. display is
// the command line or URL. remember says the answer is to be kept in the
// user's settings.
type Approver func(ctx context.Context, c ServerConfig, display string) (approved, remember bool, err error)

// Manager owns the MCP servers of one workspace. It is safe for concurrent
// use.
type Manager struct {
	opts Options
	log  *slog.Logger
	ctx  context.Context // lives until Close
	stop context.CancelFunc

	mu      sync.Mutex
	servers []*server // precedence order, one per name
	diags   []Diagnostic
	closed  bool
	ui      UI   // who opens login URLs and answers elicitations
	auto    bool // logins run at the start (pi-lsp exec)
}

// NewManager reads the configuration sources (nothing is started until
// Start). Problems are kept as diagnostics; every source that can be read
// still loads.
func NewManager(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ClientName == "" {
		opts.ClientName = "pi-lsp"
	}
	if opts.LoginTimeout <= 0 {
		opts.LoginTimeout = DefaultLoginTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, log: opts.Logger, ctx: ctx, stop: cancel}
	m.load()
	return m
}

// load merges the sources: session, then project, then user; the first
// definition of a name wins, with a notice.
func (m *Manager) load() {
	var all []ServerConfig
	for _, c := range m.opts.Session {
		c.Source = SourceSession
		if c.Err == "" {
			c.Err = c.check()
		}
		all = append(all, c)
	}
	for _, f := range []struct {
		path string
		src  Source
	}{{m.opts.ProjectFile, SourceProject}, {m.opts.UserFile, SourceUser}} {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			m.diags = append(m.diags, Diagnostic{File: f.path, Message: err.Error()})
			continue
		}
		cs, ds := ParseConfig(data, f.path, f.src)
		m.diags = append(m.diags, ds...)
		all = append(all, cs...)
	}
	seen := map[string]ServerConfig{}
	for _, c := range all {
		if first, dup := seen[c.Name]; dup {
			m.diags = append(m.diags, Diagnostic{File: c.File, Line: c.Line, Server: c.Name,
				Message: fmt.Sprintf("defined again: the %s definition (%s) wins", first.Source, orSession(first.File))})
			continue
		}
		seen[c.Name] = c
		m.servers = append(m.servers, &server{cfg: c, state: StatePending})
	}
	for _, d := range m.diags {
		m.log.Warn("mcp configuration", "problem", d.String())
	}
}

func orSession(file string) string {
	if file == "" {
		return "ACP session"
	}
	return file
}

// Diagnostics are the configuration problems found at load.
func (m *Manager) Diagnostics() []Diagnostic {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Diagnostic(nil), m.diags...)
}

// Empty reports whether no server is configured.
func (m *Manager) Empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.servers) == 0
}

func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

// Start starts every server that has not been started yet, in parallel,
// and waits until they are ready or failed, or StartTimeout passed (a
// server still starting then is marked failed). Project servers that are
// not approved in the user's settings are asked about first, one at a
// time, through approve (nil: they stay disabled). It also refreshes the
// lists of servers that announced a change. Start is cheap when there is
// nothing to do; a run calls it at every turn.
func (m *Manager) Start(ctx context.Context, approve Approver) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var pending, dirty []*server
	for _, s := range m.servers {
		switch {
		case s.isPending():
			pending = append(pending, s)
		case s.isDirty():
			dirty = append(dirty, s)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range dirty {
		wg.Add(1)
		go func() { defer wg.Done(); m.refresh(ctx, s) }()
	}
	var starting []*server
	for _, s := range pending {
		if s.cfg.Err != "" {
			m.setState(s, StateFailed, s.cfg.Err)
			continue
		}
		if s.cfg.Source == SourceProject && !m.approved(ctx, s, approve) {
			continue
		}
		m.setState(s, StateStarting, "")
		starting = append(starting, s)
	}
	for _, s := range starting {
		wg.Add(1)
		go func() { defer wg.Done(); m.startOne(ctx, s, 0) }()
	}
	wg.Wait()
}

// approved settles the approval of a project server.
func (m *Manager) approved(ctx context.Context, s *server, approve Approver) bool {
	key := s.cfg.ApprovalKey(m.opts.Cwd)
	ok, known, err := m.opts.Trust.Verdict(KeyEnabledServers, KeyDisabledServers, key)
	if err != nil {
		m.log.Warn("mcp approvals", "err", err)
	}
	if known {
		if !ok {
			m.setState(s, StateDisabled, fmt.Sprintf("declined in %s (%s)", m.opts.Trust.Path(), KeyDisabledServers))
		}
		return ok
	}
	if approve == nil {
		m.setState(s, StateDisabled, "project server not approved yet, and no client can approve it")
		return false
	}
	ok, remember, err := approve(ctx, s.cfg, s.cfg.Target())
	if err != nil {
		m.setState(s, StateDisabled, "project server not approved: "+err.Error())
		return false
	}
	if remember {
		if err := m.opts.Trust.Remember(KeyEnabledServers, KeyDisabledServers, key, ok); err != nil {
			m.log.Warn("mcp approvals", "err", err)
		}
	}
	if !ok {
		m.setState(s, StateDisabled, "declined by the user")
	}
	return ok
}

// startOne connects one server and loads its lists.
func (m *Manager) startOne(ctx context.Context, s *server, attempt int) {
	c, err := s.cfg.expanded(m.lookup)
	if err != nil {
		m.setState(s, StateFailed, err.Error())
		return
	}
	cctx, cancel := context.WithTimeout(m.ctx, m.opts.StartTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the caller gave up (abort)
	defer stop()
	// The connection's own context lives as long as the session: the SSE
	// transport ties its event stream to the context it connects with. The
	// start timeout is enforced below instead.
	life, endLife := context.WithCancel(m.ctx)
	connected := false
	defer func() {
		if !connected {
			endLife()
		}
	}()
	type result struct {
		cs     *sdk.ClientSession
		stderr *tailWriter
		g      *gate
		err    error
	}
	ch := make(chan result, 1)
	go func() {
		cs, stderr, g, err := m.connect(life, s, c)
		ch <- result{cs, stderr, g, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-cctx.Done():
		if s.isLoggingIn() && ctx.Err() == nil && m.ctx.Err() == nil {
			// A browser login is under way: it has its own bound
			// (LoginTimeout); the start waits for it.
			select {
			case r = <-ch:
				cctx, cancel = context.WithTimeout(m.ctx, m.opts.StartTimeout)
				defer cancel()
			case <-ctx.Done():
				endLife()
				r.err = ctx.Err()
			}
			break
		}
		// Closing a server that did not answer can take the SDK's
		// termination grace: it happens in the background.
		go func() {
			if late := <-ch; late.cs != nil {
				_ = late.cs.Close()
			}
		}()
		r.err = cctx.Err()
	}
	cs, stderr, err := r.cs, r.stderr, r.err
	s.setLoggingIn(false)
	if err != nil {
		if st, reason, ok := loginReason(r.g, err); ok {
			m.setState(s, st, reason)
			return
		}
		reason := err.Error()
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			reason = fmt.Sprintf("did not start within %s: %v", m.opts.StartTimeout, err)
		}
		m.setState(s, StateFailed, reason)
		return
	}
	if tried, lerr := r.g.outcome(); tried && lerr == nil {
		s.mu.Lock()
		s.login.allowed = true // logged in: step-up logins may run later
		s.mu.Unlock()
	}
	tools, prompts, resources, err := list(cctx, cs)
	if err != nil {
		_ = cs.Close()
		m.setState(s, StateFailed, "listing its tools failed: "+err.Error())
		return
	}
	templates := listTemplates(cctx, cs)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = cs.Close()
		return
	}
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.session, s.stderr = cs, stderr
	connected = true
	s.tools, s.prompts, s.resources, s.templates = tools, prompts, resources, templates
	s.dirty = false
	s.state, s.reason = StateReady, ""
	s.restarts = attempt
	s.mu.Unlock()
	m.mu.Unlock()
	m.changed()
	go m.watch(s, cs, gen, endLife)
}

// watch waits for the session to end; a stdio server that exits while it
// is current is restarted with backoff.
func (m *Manager) watch(s *server, cs *sdk.ClientSession, gen int, endLife context.CancelFunc) {
	err := cs.Wait()
	endLife()
	s.mu.Lock()
	current := s.gen == gen && s.session == cs
	attempt := s.restarts
	tail := s.stderr.last()
	if current {
		s.session = nil
	}
	s.mu.Unlock()
	if !current || m.ctx.Err() != nil {
		return
	}
	reason := "the server exited"
	if err != nil {
		reason += ": " + err.Error()
	}
	if tail != "" {
		reason += " (stderr: " + tail + ")"
	}
	if s.cfg.Type != TypeStdio || attempt >= maxRestarts {
		if attempt >= maxRestarts {
			reason += fmt.Sprintf("; gave up after %d restarts (mcp/restart starts it again)", attempt)
		}
		m.setState(s, StateFailed, reason)
		return
	}
	wait := firstBackoff << attempt
	if wait > maxBackoffWait {
		wait = maxBackoffWait
	}
	m.setState(s, StateStarting, fmt.Sprintf("%s; restarting in %s (attempt %d of %d)", reason, wait, attempt+1, maxRestarts))
	select {
	case <-m.ctx.Done():
		return
	case <-time.After(wait):
	}
	s.mu.Lock()
	stale := s.gen != gen || s.state != StateStarting
	s.mu.Unlock()
	if stale {
		return // restarted by hand meanwhile
	}
	m.startOne(m.ctx, s, attempt+1)
}

// Restart stops the named server (if running) and starts it again, waiting
// for it as Start does. A project server keeps its approval.
func (m *Manager) Restart(ctx context.Context, name string, approve Approver) (Status, error) {
	s := m.find(name)
	if s == nil {
		return Status{}, fmt.Errorf("%w: no MCP server %q", ErrUnknownServer, name)
	}
	s.mu.Lock()
	s.gen++
	cs := s.session
	s.session = nil
	s.state, s.reason = StatePending, ""
	s.restarts = 0
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	m.Start(ctx, approve)
	return s.status(m.opts.Cwd), nil
}

// ErrUnknownServer is wrapped by Restart for a name no source defines.
var ErrUnknownServer = errors.New("unknown MCP server")

func (m *Manager) find(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

func (m *Manager) lookup(name string) (string, bool) {
	for i := len(m.opts.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(m.opts.Environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func (m *Manager) setState(s *server, st State, reason string) {
	s.mu.Lock()
	s.state, s.reason = st, reason
	s.mu.Unlock()
	if st == StateFailed || st == StateDisabled {
		m.log.Warn("mcp server", "server", s.cfg.Name, "state", st, "reason", reason)
	}
	m.changed()
}

// Close stops every server.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	servers := m.servers
	m.mu.Unlock()
	m.stop()
	var wg sync.WaitGroup
	for _, s := range servers {
		s.mu.Lock()
		cs := s.session
		s.session = nil
		s.gen++
		s.mu.Unlock()
		if cs != nil {
			wg.Add(1)
			go func() { defer wg.Done(); _ = cs.Close() }()
		}
	}
	wg.Wait()
}

// refresh reloads the lists of a server that announced a change.
func (m *Manager) refresh(ctx context.Context, s *server) {
	s.mu.Lock()
	cs := s.session
	s.dirty = false
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	tools, prompts, resources, err := list(ctx, cs)
	if err != nil {
		m.log.Warn("mcp refresh", "server", s.cfg.Name, "err", err)
		return
	}
	templates := listTemplates(ctx, cs)
	s.mu.Lock()
	if s.session == cs {
		s.tools, s.prompts, s.resources, s.templates = tools, prompts, resources, templates
	}
	s.mu.Unlock()
	m.changed()
}

// list loads a session's tools, prompts and resources (the latter two only
// when the server has them).
func list(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, []*sdk.Prompt, []*sdk.Resource, error) {
	caps := &sdk.ServerCapabilities{}
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	var tools []*sdk.Tool
	var prompts []*sdk.Prompt
	var resources []*sdk.Resource
	if caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, nil, nil, fmt.Errorf("tools/list: %w", err)
			}
			tools = append(tools, t)
		}
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, nil, nil, fmt.Errorf("prompts/list: %w", err)
			}
			prompts = append(prompts, p)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, nil, nil, fmt.Errorf("resources/list: %w", err)
			}
			resources = append(resources, r)
			if len(resources) >= maxResources {
				break
			}
		}
	}
	return tools, prompts, resources, nil
}

// maxResources bounds the resources listed per server (server-everything
// has 100 and a server may have millions).
const maxResources = 200
