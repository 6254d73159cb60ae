package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// UI is whoever the user is at: it opens login URLs and answers
// elicitations. The harness sets it (the editor, the ACP client, or the
// terminal of pi-lsp exec).
type UI interface {
	// OpenURL shows an authorization URL to the user (a browser tab).
	OpenURL(ctx context.Context, server, url string) error
	// Elicit asks the user for the fields of schema. The answer is
	// validated (and completed with defaults) by the manager.
	Elicit(ctx context.Context, server string, req ElicitRequest) (ElicitResult, error)
}

// SetUI sets who opens login URLs and answers elicitations.
func (m *Manager) SetUI(ui UI) {
	m.mu.Lock()
	m.ui = ui
	m.mu.Unlock()
}

func (m *Manager) getUI() UI {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ui
}

// SetAutoLogin makes servers that answer 401 log in as they start (pi-lsp
// exec, before its first model request) instead of waiting for mcp/login.
func (m *Manager) SetAutoLogin(v bool) {
	m.mu.Lock()
	m.auto = v
	m.mu.Unlock()
}

func (m *Manager) autoLogin() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.auto
}

// Login runs the browser login of an http or sse server (mcp/login) and
// starts it: its tools appear at the next turn. A failed login leaves the
// server failed with "login failed: <reason>".
func (m *Manager) Login(ctx context.Context, name string) (Status, error) {
	s := m.find(name)
	if s == nil {
		return Status{}, fmt.Errorf("%w: no MCP server %q", ErrUnknownServer, name)
	}
	if !remote(s.cfg) {
		return s.status(m.opts.Cwd), fmt.Errorf("%w: %q is a %s server: only http and sse servers log in", ErrNoLogin, name, s.cfg.Type)
	}
	s.mu.Lock()
	s.login.allowed = true
	s.mu.Unlock()
	return m.Restart(ctx, name, nil)
}

// ErrNoLogin is wrapped by Login and Logout for a server that has none.
var ErrNoLogin = errors.New("no login")

// Logout forgets a server's stored token and stops it; it shows
// needs-login until the next mcp/login.
func (m *Manager) Logout(_ context.Context, name string) (Status, error) {
	s := m.find(name)
	if s == nil {
		return Status{}, fmt.Errorf("%w: no MCP server %q", ErrUnknownServer, name)
	}
	if !remote(s.cfg) {
		return s.status(m.opts.Cwd), fmt.Errorf("%w: %q is a %s server", ErrNoLogin, name, s.cfg.Type)
	}
	c, err := s.cfg.expanded(m.lookup)
	if err != nil {
		c = s.cfg
	}
	if err := m.opts.Tokens.Put(tokenKey(c), nil); err != nil {
		return s.status(m.opts.Cwd), err
	}
	s.mu.Lock()
	s.gen++
	cs := s.session
	s.session = nil
	s.login.allowed = false
	s.tools, s.prompts, s.resources, s.templates = nil, nil, nil, nil
	s.state, s.reason = StateNeedsLogin, "logged out: log in with mcp/login"
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
	m.changed()
	return s.status(m.opts.Cwd), nil
}

// fetchCode is the authorization code fetcher of a server: a loopback
// listener on 127.0.0.1:port for the redirect, the URL shown to the user,
// and the redirect's code once its state matches.
func (m *Manager) fetchCode(server string, port int) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("bad authorization URL: %w", err)
		}
		want := u.Query().Get("state")
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return nil, fmt.Errorf("the callback port %d is in use: %w", port, err)
		}
		type answer struct {
			res *auth.AuthorizationResult
			err error
		}
		ch := make(chan answer, 1)
		send := func(a answer) {
			select {
			case ch <- a:
			default:
			}
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			switch {
			case q.Get("error") != "":
				msg := q.Get("error")
				if d := q.Get("error_description"); d != "" {
					msg += ": " + d
				}
				http.Error(w, "Login failed: "+msg, http.StatusBadRequest)
				send(answer{err: fmt.Errorf("the authorization server answered %s", msg)})
			case q.Get("state") != want:
				http.Error(w, "Login failed: the state does not match", http.StatusBadRequest)
				send(answer{err: errors.New("state mismatch")})
			case q.Get("code") == "":
				http.Error(w, "Login failed: no code", http.StatusBadRequest)
				send(answer{err: errors.New("the redirect has no code")})
			default:
				_, _ = io.WriteString(w, "Logged in to "+server+". You can close this tab.\n")
				send(answer{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}})
			}
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		ui := m.getUI()
		if ui == nil {
			ui = TerminalUI{Out: os.Stderr}
		}
		m.log.Info("mcp oauth: opening the login page", "server", server)
		if err := ui.OpenURL(ctx, server, args.URL); err != nil {
			return nil, fmt.Errorf("opening the login page: %w", err)
		}
		timer := time.NewTimer(m.opts.LoginTimeout)
		defer timer.Stop()
		select {
		case a := <-ch:
			return a.res, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			return nil, fmt.Errorf("no redirect came back within %s", m.opts.LoginTimeout)
		}
	}
}

// TerminalUI is pi-lsp exec's: $BROWSER opens login URLs (else the URL is
// printed with instructions); elicitations are declined unless Yolo is set
// and every required field has a default, which are then accepted.
type TerminalUI struct {
	Out     io.Writer
	Browser string // the $BROWSER command ("" prints the URL)
	Yolo    bool
}

// OpenURL runs $BROWSER with the URL (as its last argument, or in place of
// %s), or prints it.
func (t TerminalUI) OpenURL(ctx context.Context, server, u string) error {
	if strings.TrimSpace(t.Browser) == "" {
		fmt.Fprintf(t.Out, "MCP server %q needs a login. Open this URL in a browser on this machine:\n  %s\n", server, u)
		return nil
	}
	words := strings.Fields(t.Browser)
	args := words[1:]
	if strings.Contains(t.Browser, "%s") {
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "%s", u)
		}
	} else {
		args = append(args, u)
	}
	cmd := exec.CommandContext(ctx, words[0], args...)
	cmd.Stdout, cmd.Stderr = io.Discard, t.Out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("$BROWSER: %w", err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// Elicit accepts with the schema's defaults when Yolo is set and every
// required field has one; otherwise it declines (nobody can answer).
func (t TerminalUI) Elicit(_ context.Context, server string, req ElicitRequest) (ElicitResult, error) {
	if !t.Yolo || !allRequiredDefaulted(req.RequestedSchema) {
		fmt.Fprintf(t.Out, "MCP server %q asked %q: declined (no one to answer; --yolo accepts forms whose required fields have defaults)\n", server, req.Message)
		return ElicitResult{Action: "decline"}, nil
	}
	return ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}
