package langserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/langserver/internal/protocol"
)

// The LSP types callers see (go.lsp.dev/protocol's, see internal/protocol).
type (
	// Diagnostic is LSP's Diagnostic: 0-based range, severity 1–4.
	Diagnostic = protocol.Diagnostic
	// Range is LSP's 0-based Range.
	Range = protocol.Range
	// Position is LSP's 0-based Position.
	Position = protocol.Position
)

// LSP severities.
const (
	SeverityError   = protocol.DiagnosticSeverityError
	SeverityWarning = protocol.DiagnosticSeverityWarning
)

// ColdStart bounds the first wait for a server that has just started: it
// has to load the workspace before it publishes anything.
const ColdStart = 10 * time.Second

// ErrNoServer: no configured or detected server serves the file.
var ErrNoServer = errors.New("langserver: no language server for this file")

// ErrOutside: the file is outside the workspace; it is never sent to a
// language server.
var ErrOutside = errors.New("langserver: the file is outside the workspace")

// UnavailableError is a server that cannot answer: missing, crashed,
// hung, or speaking garbage.
type UnavailableError struct {
	Server string
	Reason string
}

func (e *UnavailableError) Error() string { return e.Reason }

// Options configure a Manager.
type Options struct {
	// Root is the workspace root the servers start in.
	Root string
	// Roots bound the files sent to a server (Root is always one).
	Roots []string
	// Servers are the servers to use (Resolve).
	Servers []ServerConfig
	// Wrap puts a server's argv under the sandbox (nil: run it as is).
	Wrap func(argv []string) ([]string, error)
	// Environ is the servers' environment (nil: the process's).
	Environ []string
	Logger  *slog.Logger
	// Notice tells the user something once (a server given up on).
	Notice func(string)
	// StartTimeout bounds initialize and the first wait after a start
	// (0: ColdStart).
	StartTimeout time.Duration
}

// FileDiagnostics are the problems a server published for one file.
type FileDiagnostics struct {
	Path        string
	Diagnostics []Diagnostic
}

// Manager runs the language servers of one workspace root. Its methods
// are safe for concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	slots   map[string]*slot
	closed  bool
	startWG sync.WaitGroup
}

// slot is one configured server: its running instance, how it started,
// and how often it crashed.
type slot struct {
	cfg      ServerConfig
	mu       sync.Mutex
	srv      *server
	started  time.Time
	restarts int
	gaveUp   string // why it was given up on
}

// New returns a Manager; no server starts until Warm or the first request.
func New(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = ColdStart
	}
	m := &Manager{opts: opts, log: opts.Logger, slots: map[string]*slot{}}
	for _, c := range opts.Servers {
		m.slots[c.Name] = &slot{cfg: c}
	}
	return m
}

// Warm starts, in the background, each server that serves a file of the
// workspace (a bounded walk), so that it is ready by the first edit.
func (m *Manager) Warm() {
	if len(m.slots) == 0 {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.startWG.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.startWG.Done()
		for _, name := range m.present() {
			sl := m.slots[name]
			if _, err := m.get(context.Background(), sl); err != nil {
				m.log.Info("langserver: not started", "server", name, "err", err)
			}
		}
	}()
}

// present are the servers with a file of theirs in the workspace.
func (m *Manager) present() []string {
	found := map[string]bool{}
	n := 0
	_ = filepath.WalkDir(m.opts.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor", "target", ".venv", "__pycache__", "dist", "build":
				if p != m.opts.Root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		n++
		if n > 20000 || len(found) == len(m.slots) {
			return filepath.SkipAll
		}
		for name, sl := range m.slots {
			if !found[name] && sl.cfg.serves(p) {
				found[name] = true
			}
		}
		return nil
	})
	var out []string
	for _, c := range m.opts.Servers {
		if found[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// slotFor is the server of path.
func (m *Manager) slotFor(path string) *slot {
	for _, c := range m.opts.Servers {
		if c.serves(path) {
			return m.slots[c.Name]
		}
	}
	return nil
}

// Serves reports whether a server is configured for path.
func (m *Manager) Serves(path string) bool { return m.slotFor(path) != nil }

// get returns the running server of sl, starting it (the first time, or
// once again after a crash). A server that crashed after its restart is
// given up on, with a notice.
func (m *Manager) get(ctx context.Context, sl *slot) (*server, error) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, &UnavailableError{sl.cfg.Name, "the session is closing"}
	}
	if sl.gaveUp != "" {
		return nil, &UnavailableError{sl.cfg.Name, sl.gaveUp}
	}
	if sl.srv != nil {
		why := sl.srv.dead()
		if why == "" {
			return sl.srv, nil
		}
		sl.srv.kill()
		sl.srv = nil
		if sl.restarts >= 1 {
			sl.gaveUp = why + " (crashed again after a restart; not restarted)"
			m.notice(fmt.Sprintf("Language server %s stopped: %s. pi-lsp gave up on it for this session.", sl.cfg.Name, why))
			return nil, &UnavailableError{sl.cfg.Name, sl.gaveUp}
		}
		sl.restarts++
		m.log.Warn("langserver: restarting after a crash", "server", sl.cfg.Name, "why", why)
	}
	argv := append([]string(nil), sl.cfg.Command...)
	if _, err := lookPath(argv[0], m.opts.Environ); err != nil {
		sl.gaveUp = fmt.Sprintf("%s is not installed (%s not found on PATH)", sl.cfg.Name, argv[0])
		return nil, &UnavailableError{sl.cfg.Name, sl.gaveUp}
	}
	if m.opts.Wrap != nil {
		w, err := m.opts.Wrap(argv)
		if err != nil {
			sl.gaveUp = fmt.Sprintf("%s cannot start: %v", sl.cfg.Name, err)
			return nil, &UnavailableError{sl.cfg.Name, sl.gaveUp}
		}
		argv = w
	}
	ictx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	srv, err := startServer(ictx, sl.cfg, m.opts.Root, argv, m.opts.Environ, m.log)
	if err != nil {
		why := fmt.Sprintf("%s did not start: %v", sl.cfg.Name, err)
		if ictx.Err() != nil && ctx.Err() == nil {
			why = fmt.Sprintf("%s did not answer initialize within %s", sl.cfg.Name, m.opts.StartTimeout)
		}
		if ctx.Err() == nil {
			sl.gaveUp = why
		}
		return nil, &UnavailableError{sl.cfg.Name, why}
	}
	sl.srv = srv
	sl.started = time.Now()
	return srv, nil
}

// lookPath finds a program on the PATH of environ.
func lookPath(prog string, environ []string) (string, error) {
	if strings.Contains(prog, "/") {
		if _, err := os.Stat(prog); err != nil {
			return "", err
		}
		return prog, nil
	}
	for _, kv := range environ {
		if dirs, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(dirs) {
				p := filepath.Join(d, prog)
				if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
			return "", fs.ErrNotExist
		}
	}
	return "", fs.ErrNotExist
}

func (m *Manager) notice(s string) {
	m.log.Warn("langserver: " + s)
	if m.opts.Notice != nil {
		m.opts.Notice(s)
	}
}

// inside reports whether path is inside the workspace, symlinks resolved.
func (m *Manager) inside(path string) bool {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		real = filepath.Join(r, filepath.Base(path))
	}
	for _, root := range append([]string{m.opts.Root}, m.opts.Roots...) {
		rr := root
		if r, err := filepath.EvalSymlinks(root); err == nil {
			rr = r
		}
		if rel, err := filepath.Rel(rr, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// prepare checks path and returns its running server, synced with the
// file on disk.
func (m *Manager) prepare(ctx context.Context, path string) (*server, *slot, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.opts.Root, path)
	}
	if !m.inside(path) {
		return nil, nil, ErrOutside
	}
	sl := m.slotFor(path)
	if sl == nil {
		return nil, nil, ErrNoServer
	}
	srv, err := m.get(ctx, sl)
	if err != nil {
		return nil, sl, err
	}
	return srv, sl, nil
}

// Diagnostics syncs each file with its server and returns what the
// servers publish for them once they settle: a publish since the sync,
// then a short quiet time, within settle (ColdStart right after a start).
// Files no server serves are left out. A server that cannot answer is
// an *UnavailableError (the others' files are still returned).
func (m *Manager) Diagnostics(ctx context.Context, paths []string, settle time.Duration) ([]FileDiagnostics, error) {
	type job struct {
		path string
		srv  *server
		sl   *slot
	}
	var jobs []job
	var firstErr error
	for _, p := range paths {
		srv, sl, err := m.prepare(ctx, p)
		if err != nil {
			if !errors.Is(err, ErrNoServer) && !errors.Is(err, ErrOutside) && firstErr == nil {
				firstErr = err
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue // deleted: nothing to report
		}
		if _, err := srv.sync(ctx, p, string(data)); err != nil {
			if firstErr == nil {
				firstErr = &UnavailableError{sl.cfg.Name, err.Error()}
			}
			continue
		}
		jobs = append(jobs, job{p, srv, sl})
	}
	// The files settle at the same time, within one deadline.
	limit := settle
	for _, j := range jobs {
		j.sl.mu.Lock()
		if cold := m.opts.StartTimeout; time.Since(j.sl.started) < cold {
			limit = max(limit, cold-time.Since(j.sl.started))
		}
		j.sl.mu.Unlock()
	}
	wctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	quiet := min(300*time.Millisecond, settle/4)
	type settledDiags struct {
		diags []Diagnostic
		fresh bool
	}
	results := make([]settledDiags, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, fresh := j.srv.settled(wctx, j.path, quiet)
			results[i] = settledDiags{d, fresh}
		}()
	}
	wg.Wait()
	var out []FileDiagnostics
	for i, j := range jobs {
		if why := j.srv.dead(); why != "" {
			if firstErr == nil {
				firstErr = &UnavailableError{j.sl.cfg.Name, why}
			}
			continue
		}
		if !results[i].fresh {
			m.log.Info("langserver: no diagnostics published in time", "server", j.sl.cfg.Name, "path", j.path, "wait", limit)
		}
		out = append(out, FileDiagnostics{Path: j.path, Diagnostics: results[i].diags})
	}
	return out, firstErr
}

// Close shuts every server down (shutdown, exit, then SIGKILL of its
// process group) and waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, sl := range m.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sl.mu.Lock()
			srv := sl.srv
			sl.srv = nil
			sl.mu.Unlock()
			if srv != nil {
				srv.shutdown(time.Second)
			}
		}()
	}
	wg.Wait()
	// A start in progress finishes (bounded by ColdStart) and is closed.
	m.startWG.Wait()
	for _, sl := range m.slots {
		sl.mu.Lock()
		srv := sl.srv
		sl.srv = nil
		sl.mu.Unlock()
		if srv != nil {
			srv.shutdown(time.Second)
		}
	}
}
