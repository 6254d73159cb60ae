package mcp

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// terminateGrace is how long closing a stdio server waits for it to exit
// after its stdin closed, before SIGTERM.
const terminateGrace = time.Second

// transport builds the SDK transport for an expanded config. stderr gets a
// stdio server's standard error. An http or sse server gets an OAuth gate
// (returned too: it tells a needed or failed login from other failures).
func (m *Manager) transport(s *server, c ServerConfig, stderr *tailWriter) (sdk.Transport, *gate, error) {
	switch c.Type {
	case TypeStdio:
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = m.opts.Cwd
		if c.Cwd != "" {
			cmd.Dir = c.Cwd
			if !filepath.IsAbs(c.Cwd) {
				cmd.Dir = filepath.Join(m.opts.Cwd, c.Cwd)
			}
		}
		cmd.Env = mergeEnv(m.opts.Environ, c.Env)
		cmd.Stderr = stderr
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateGrace}, nil, nil
	case TypeHTTP:
		hc := headerClient(c.Headers)
		if staticAuth(c) {
			return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: hc, MaxRetries: 2}, nil, nil
		}
		g, err := m.oauthHandler(s, c, &http.Client{})
		if err != nil {
			return nil, nil, err
		}
		return &sdk.StreamableClientTransport{Endpoint: c.URL, HTTPClient: hc, MaxRetries: 2, OAuthHandler: g}, g, nil
	case TypeSSE:
		if staticAuth(c) {
			return &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: headerClient(c.Headers)}, nil, nil
		}
		g, err := m.oauthHandler(s, c, &http.Client{})
		if err != nil {
			return nil, nil, err
		}
		base := headerClient(c.Headers).Transport
		if base == nil {
			base = http.DefaultTransport
		}
		return &sdk.SSEClientTransport{Endpoint: c.URL, HTTPClient: &http.Client{Transport: authRoundTripper{h: g, base: base}}}, g, nil
	}
	return nil, nil, fmt.Errorf("unknown type %q", c.Type)
}

// staticAuth reports whether the server takes a configured Authorization
// header and no "oauth" entry: its token is the user's, and a 401 is a
// failure (a wrong token), not a login to run.
func staticAuth(c ServerConfig) bool {
	if c.OAuth != nil {
		return false
	}
	for k := range c.Headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// headerClient is an HTTP client that adds the configured headers (bearer
// tokens) to every request.
func headerClient(h map[string]string) *http.Client {
	if len(h) == 0 {
		return &http.Client{}
	}
	return &http.Client{Transport: headerTransport{h: h, base: http.DefaultTransport}}
}

type headerTransport struct {
	h    map[string]string
	base http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// mergeEnv is base with extra set (extra wins), sorted for stable output.
func mergeEnv(base []string, extra map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	m := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for k, v := range extra {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// tailWriter keeps the last few KB a server wrote to stderr (for the
// failure reason) and logs each line.
type tailWriter struct {
	mu   sync.Mutex
	buf  []byte
	log  func(line string)
	part []byte
}

const stderrTail = 4 << 10

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > stderrTail {
		w.buf = w.buf[len(w.buf)-stderrTail:]
	}
	w.part = append(w.part, p...)
	for {
		i := strings.IndexByte(string(w.part), '\n')
		if i < 0 {
			break
		}
		if w.log != nil {
			w.log(string(w.part[:i]))
		}
		w.part = w.part[i+1:]
	}
	if len(w.part) > stderrTail {
		w.part = w.part[len(w.part)-stderrTail:]
	}
	return len(p), nil
}

// last returns the last line or two of stderr, for a failure reason.
func (w *tailWriter) last() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.TrimSpace(string(w.buf))
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	s = strings.Join(lines, " | ")
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return s
}

// connect starts or dials the server and runs the MCP handshake.
func (m *Manager) connect(ctx context.Context, s *server, c ServerConfig) (*sdk.ClientSession, *tailWriter, *gate, error) {
	stderr := &tailWriter{log: func(line string) { m.log.Debug("mcp server stderr", "server", c.Name, "line", line) }}
	t, g, err := m.transport(s, c, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: m.opts.ClientName, Version: m.opts.ClientVersion}, &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { s.markDirty() },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { s.markDirty() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { s.markDirty() },
		// Setting the handler declares the elicitation capability (form).
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return m.elicit(ctx, c.Name, req)
		},
	})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		if tail := stderr.last(); tail != "" {
			err = fmt.Errorf("%w (stderr: %s)", err, tail)
		}
		return nil, stderr, g, err
	}
	return cs, stderr, g, nil
}
