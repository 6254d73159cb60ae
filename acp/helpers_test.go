package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// fixedModels resolves the one fake model.
type fixedModels struct{ m llm.Model }

func (f fixedModels) Find(_ context.Context, ref string) (llm.Model, error) {
	if ref == f.m.Ref() {
		return f.m, nil
	}
	return llm.Model{}, fmt.Errorf("%w: model %q", harness.ErrNotFound, ref)
}

func (f fixedModels) Default(context.Context) (llm.Model, error) { return f.m, nil }

// rawClient is an NDJSON client over pipes: it sends requests, answers the
// agent's requests with onRequest and keeps every line and update.
type rawClient struct {
	t         testing.TB
	w         io.Writer
	wmu       sync.Mutex
	mu        sync.Mutex
	next      int
	waiting   map[string]chan map[string]json.RawMessage
	lines     [][]byte
	updates   []map[string]any
	onRequest func(method string, params json.RawMessage) any
	done      chan struct{}
}

type fixture struct {
	c    *rawClient
	srv  *llmtest.Server
	cwd  string
	stop func()
}

// newFixture serves an agent over pipes, answered by a fake model.
func newFixture(t testing.TB, script []llmtest.Response, onRequest func(string, json.RawMessage) any) *fixture {
	t.Helper()
	srv := llmtest.NewServer(t, script...)
	cwd := t.TempDir()
	root := filepath.Join(t.TempDir(), "sessions")
	model := llm.Model{ID: "m1", Name: "M1", Provider: "fake", API: "openai-completions", BaseURL: srv.BaseURL(),
		ContextWindow: 128000, MaxTokens: 4096, APIKey: "fake-key"}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(ctx, Options{Name: "pi-lsp", Version: "test", SessionsRoot: root,
			Environ: []string{"OPENAI_API_KEY=sk-secretsecretsecret1234"},
			NewHarness: func(cwd string, wrap func(env.Env) env.Env) (*harness.Harness, error) {
				var e env.Env = env.NewLocal(cwd)
				if wrap != nil {
					e = wrap(e)
				}
				return harness.New(harness.Config{Env: e, Models: fixedModels{model}, SessionsRoot: root,
					Streamer: llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Millisecond, MaxRetries: 1}),
					AgentDir: filepath.Join(cwd, ".agent-home"), Environ: []string{"OPENAI_API_KEY=sk-secretsecretsecret1234"}}), nil
			},
			Models: func(context.Context) ([]Model, error) { return []Model{{Ref: model.Ref(), Name: model.Name}}, nil },
		}, inR, outW)
		_ = outW.Close()
	}()
	c := &rawClient{t: t, w: inW, waiting: map[string]chan map[string]json.RawMessage{}, onRequest: onRequest, done: make(chan struct{})}
	go c.read(outR)
	f := &fixture{c: c, srv: srv, cwd: cwd}
	f.stop = func() {
		_ = inW.Close()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after its input closed")
		}
		cancel()
	}
	t.Cleanup(f.stop)
	return f
}

func (c *rawClient) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Errorf("agent wrote a line that is not JSON: %q", line)
			continue
		}
		c.mu.Lock()
		c.lines = append(c.lines, line)
		c.mu.Unlock()
		_, hasMethod := m["method"]
		id, hasID := m["id"]
		switch {
		case hasMethod && hasID:
			var method string
			_ = json.Unmarshal(m["method"], &method)
			go func() {
				var result any = map[string]any{}
				if c.onRequest != nil {
					result = c.onRequest(method, m["params"])
				}
				c.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
			}()
		case hasMethod:
			var p map[string]any
			_ = json.Unmarshal(m["params"], &p)
			c.mu.Lock()
			c.updates = append(c.updates, p)
			c.mu.Unlock()
		case hasID:
			c.mu.Lock()
			ch := c.waiting[string(id)]
			delete(c.waiting, string(id))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *rawClient) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Errorf("marshal: %v", err)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(b, '\n'))
}

// start sends a request and returns a func that waits for its response.
func (c *rawClient) start(method string, params any) func() map[string]json.RawMessage {
	c.mu.Lock()
	c.next++
	id := fmt.Sprint(c.next)
	ch := make(chan map[string]json.RawMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return func() map[string]json.RawMessage {
		select {
		case m := <-ch:
			return m
		case <-time.After(15 * time.Second):
			c.t.Fatalf("no response to %s", method)
			return nil
		}
	}
}

// call sends a request and decodes its result into out (nil: ignore); it
// fails the test on an error response.
func (c *rawClient) call(method string, params any, out any) {
	c.t.Helper()
	m := c.start(method, params)()
	if e, ok := m["error"]; ok {
		c.t.Fatalf("%s: error %s", method, e)
	}
	if out != nil {
		if err := json.Unmarshal(m["result"], out); err != nil {
			c.t.Fatalf("%s result: %v", method, err)
		}
	}
}

func (c *rawClient) snapshot() (lines [][]byte, updates []map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.lines...), append([]map[string]any(nil), c.updates...)
}

// initSession initializes and opens a session; it returns its id.
func (f *fixture) initSession(t testing.TB, caps map[string]any) string {
	t.Helper()
	f.c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}, nil)
	var s struct {
		SessionID string `json:"sessionId"`
	}
	f.c.call("session/new", map[string]any{"cwd": f.cwd, "mcpServers": []any{}}, &s)
	return s.SessionID
}

func updateKind(u map[string]any) string {
	up, _ := u["update"].(map[string]any)
	k, _ := up["sessionUpdate"].(string)
	return k
}

func chunkText(us []map[string]any, kind string) string {
	out := ""
	for _, u := range us {
		if updateKind(u) != kind {
			continue
		}
		c, _ := u["update"].(map[string]any)["content"].(map[string]any)
		s, _ := c["text"].(string)
		out += s
	}
	return out
}
