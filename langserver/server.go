package langserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/pi-lsp/pi-lsp/langserver/internal/protocol"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// server is one running language server process and its connection.
type server struct {
	cfg  ServerConfig
	root string
	log  *slog.Logger

	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	exited chan struct{} // closed when the process has exited
	stderr *tailBuffer

	mu      sync.Mutex
	docs    map[protocol.DocumentURI]*document
	pubs    map[protocol.DocumentURI]*published
	changed chan struct{} // closed and replaced on every publish
	waitErr error         // the process's exit status, once exited
	closing bool
}

// document is a file the server has open: its version and text.
type document struct {
	version int32
	text    string
	synced  int // pubs count when the text last changed
}

// published is what the server last published for a document, and how
// many times it published.
type published struct {
	count int
	at    time.Time
	diags []protocol.Diagnostic
}

// tailBuffer keeps the last bytes a server wrote to stderr, for the
// reason of a crash.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-2048:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return string(bytes.TrimSpace(lines[len(lines)-1]))
}

// pipes is the server's stdout and stdin as one stream.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	err := p.w.Close()
	if e := p.ReadCloser.Close(); err == nil {
		err = e
	}
	return err
}

// startServer starts argv (the server's command, already wrapped in the
// sandbox) in its own process group and initializes it within ctx.
func startServer(ctx context.Context, cfg ServerConfig, root string, argv, environ []string, log *slog.Logger) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = environ
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &server{
		cfg: cfg, root: root, log: log, cmd: cmd,
		exited:  make(chan struct{}),
		stderr:  &tailBuffer{},
		docs:    map[protocol.DocumentURI]*document{},
		pubs:    map[protocol.DocumentURI]*published{},
		changed: make(chan struct{}),
	}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(s.exited)
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipes{stdout, stdin}))
	s.conn.Go(context.Background(), s.handle)
	if err := s.initialize(ctx); err != nil {
		s.kill()
		return nil, err
	}
	return s, nil
}

func (s *server) initialize(ctx context.Context) error {
	ru := uri.File(s.root)
	params := protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "pi-lsp"},
		//lint:ignore SA1019 deprecated in LSP 3.17, still read by servers that predate workspaceFolders
		RootURI:               ru,
		InitializationOptions: s.cfg.InitializationOptions,
		Capabilities: protocol.ClientCapabilities{
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
				Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.Markdown, protocol.PlainText}},
				DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
			},
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
		},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(ru), Name: "workspace"}},
	}
	var res json.RawMessage
	if err := s.call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := s.conn.Notify(ctx, protocol.MethodInitialized, protocol.InitializedParams{}); err != nil {
		return fmt.Errorf("initialized: %w", s.failure(err))
	}
	return nil
}

// handle answers the server's requests (configuration, progress,
// registrations) and records its diagnostics.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			s.log.Warn("langserver: unreadable publishDiagnostics", "server", s.cfg.Name, "err", err)
			return nil, nil
		}
		s.mu.Lock()
		pb := s.pubs[p.URI]
		if pb == nil {
			pb = &published{}
			s.pubs[p.URI] = pb
		}
		pb.count++
		pb.at = time.Now()
		pb.diags = p.Diagnostics
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		return nil, nil
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		_ = json.Unmarshal(req.Params(), &p)
		return make([]any, len(p.Items)), nil
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodClientRegisterCapability,
		protocol.MethodClientUnregisterCapability, protocol.MethodWindowShowMessageRequest:
		return nil, nil
	case protocol.MethodWorkspaceWorkspaceFolders:
		return []protocol.WorkspaceFolder{{URI: string(uri.File(s.root)), Name: "workspace"}}, nil
	}
	if req.IsCall() {
		return nil, jsonrpc2.ErrMethodNotFound
	}
	return nil, nil
}

// call is conn.Call that fails fast when the process or the connection
// ends.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.exited:
			cancel()
		case <-s.conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	if _, err := s.conn.Call(ctx, method, params, result); err != nil {
		return s.failure(err)
	}
	return nil
}

// failure is err, or the reason the server is gone when it is.
func (s *server) failure(err error) error {
	if why := s.dead(); why != "" {
		return errors.New(why)
	}
	return err
}

// dead is why the server cannot serve ("" while it can).
func (s *server) dead() string {
	select {
	case <-s.exited:
		s.mu.Lock()
		werr := s.waitErr
		s.mu.Unlock()
		why := "exited"
		if werr != nil {
			why = werr.Error()
		}
		if l := s.stderr.lastLine(); l != "" {
			why += ": " + truncate(l, 200)
		}
		return s.cfg.Name + " " + why
	default:
	}
	select {
	case <-s.conn.Done():
		why := s.cfg.Name + " broke the connection"
		if err := s.conn.Err(); err != nil {
			why += ": " + truncate(err.Error(), 200)
		}
		return why
	default:
	}
	return ""
}

// sync brings the server's copy of path up to text: didOpen the first
// time, then didChange and didSave when the text changed. It reports
// whether anything was sent.
func (s *server) sync(ctx context.Context, path, text string) (bool, error) {
	u := uri.File(path)
	s.mu.Lock()
	d := s.docs[u]
	count := 0
	if pb := s.pubs[u]; pb != nil {
		count = pb.count
	}
	if d != nil && d.text == text {
		s.mu.Unlock()
		return false, nil
	}
	if d == nil {
		d = &document{version: 1, text: text, synced: count}
		s.docs[u] = d
		s.mu.Unlock()
		err := s.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(languageID(path)), Version: 1, Text: text},
		})
		if err != nil {
			return true, s.failure(err)
		}
		return true, nil
	}
	d.version++
	d.text = text
	d.synced = count
	v := d.version
	s.mu.Unlock()
	err := s.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: text}},
	})
	if err == nil {
		err = s.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	if err != nil {
		return true, s.failure(err)
	}
	return true, nil
}

// settled waits until the server has published for path since its last
// sync and then been quiet for quiet, or until ctx ends. It returns the
// diagnostics last published and whether any came since the sync.
func (s *server) settled(ctx context.Context, path string, quiet time.Duration) ([]protocol.Diagnostic, bool) {
	u := uri.File(path)
	for {
		s.mu.Lock()
		d, pb, ch := s.docs[u], s.pubs[u], s.changed
		fresh := pb != nil && (d == nil || pb.count > d.synced)
		var diags []protocol.Diagnostic
		var wait time.Duration
		if fresh {
			diags = append(diags, pb.diags...)
			wait = quiet - time.Since(pb.at)
		}
		s.mu.Unlock()
		if fresh && wait <= 0 {
			return diags, true
		}
		var timer <-chan time.Time
		if fresh {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-ch:
		case <-timer:
		case <-s.exited:
			return diags, fresh
		case <-ctx.Done():
			return diags, fresh
		}
	}
}

// shutdown asks the server to stop (shutdown, exit), then kills its
// process group if it has not gone within grace.
func (s *server) shutdown(grace time.Duration) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	s.mu.Unlock()
	if s.dead() == "" {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		if s.call(ctx, protocol.MethodShutdown, nil, nil) == nil {
			_ = s.conn.Notify(ctx, protocol.MethodExit, nil)
		}
		cancel()
		select {
		case <-s.exited:
		case <-time.After(grace):
		}
	}
	s.kill()
}

// kill ends the server's whole process group and waits for it.
func (s *server) kill() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = s.conn.Close()
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		s.log.Warn("langserver: the server did not exit after SIGKILL", "server", s.cfg.Name)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
