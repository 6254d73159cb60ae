package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// binPath is the pi-lsp binary built once for the package.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pi-lsp-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "pi-lsp")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./cmd/pi-lsp")...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building pi-lsp:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's world: a fake LLM, a home, a sessions dir, a workspace.
type env struct {
	t         testing.TB
	llm       *llmtest.Server
	home      string
	sessions  string
	workspace string
	models    string
}

func newEnv(t testing.TB, script []llmtest.Response, models ...llmtest.ModelSpec) *env {
	t.Helper()
	return newEnvAt(t, t.TempDir(), script, models...)
}

// newEnvAt is newEnv with its world under base.
func newEnvAt(t testing.TB, base string, script []llmtest.Response, models ...llmtest.ModelSpec) *env {
	t.Helper()
	e := &env{t: t, llm: llmtest.NewServer(t, script...)}
	e.home = filepath.Join(base, "home")
	e.sessions = filepath.Join(base, "sessions")
	e.workspace = filepath.Join(base, "work")
	for _, d := range []string{e.home, e.workspace} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if len(models) == 0 {
		models = []llmtest.ModelSpec{{ID: "m1", Name: "M1"}, {ID: "m2", Name: "M2"}}
	}
	e.models = llmtest.WriteModelsJSON(base, e.llm.BaseURL(), models...)
	return e
}

// server is one running pi-lsp process with its client.
type server struct {
	*rpctest.Client
	cmd  *exec.Cmd
	t    testing.TB
	init json.RawMessage
	// stderr is the process's stderr: read it only after cmd.Wait.
	stderr *strings.Builder
}

type startOpt struct {
	caps     map[string]any
	initOpts map[string]any
	args     []string
	extraEnv []string
}

func (e *env) start(o startOpt) *server { return e.startWithPID(os.Getpid(), o) }

func (e *env) startWithPID(pid int, o startOpt) *server {
	e.t.Helper()
	s := e.spawn(o)
	res, err := s.initialize(pid, o)
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	s.init = res
	return s
}

// spawn starts pi-lsp with o's arguments and environment, without
// initializing it.
func (e *env) spawn(o startOpt) *server {
	t := e.t
	t.Helper()
	args := append([]string{"serve", "--model", "fake/m1"}, o.args...)
	cmd := exec.Command(binPath, args...)
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(),
		"HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions,
		"OPENAI_API_KEY=", "OPENROUTER_API_KEY=", "DEEPSEEK_API_KEY=", "GROQ_API_KEY=", "GEMINI_API_KEY=")
	cmd.Env = append(cmd.Env, o.extraEnv...)
	// Read only after cmd.Wait, which waits for the copy into it.
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	c, err := rpctest.Dial(cmd)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{Client: c, cmd: cmd, t: t, stderr: stderr}
	t.Cleanup(func() {
		_ = c.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("pi-lsp stderr:\n%s", stderr.String())
		}
	})
	return s
}

// initialize sends initialize with the options' capabilities and
// initializationOptions.
func (s *server) initialize(pid int, o startOpt) (json.RawMessage, error) {
	caps := o.caps
	if caps == nil {
		caps = map[string]any{"ui": map[string]any{"approvals": true, "questions": true, "planApproval": true}}
	}
	params := map[string]any{
		"processId": pid, "clientInfo": map[string]any{"name": "integration-test"},
		"rootUri": "file://" + s.cmd.Dir, "capabilities": caps,
	}
	if o.initOpts != nil {
		params["initializationOptions"] = o.initOpts
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s.Initialize(ctx, params)
}

func (s *server) call(method string, params, result any) {
	s.t.Helper()
	if err := s.try(method, params, result); err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
}

func (s *server) try(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.Call(ctx, method, params, result)
}

// state is session/state.
type state struct {
	Phase         string `json:"phase"`
	IsRunning     bool   `json:"isRunning"`
	SessionID     string `json:"sessionId"`
	Path          string `json:"path"`
	Model         string `json:"model"`
	ThinkingLevel string `json:"thinkingLevel"`
	MessageCount  int    `json:"messageCount"`
	Mode          string `json:"mode"`
	Yolo          bool   `json:"yolo"`
	ContextTokens int    `json:"contextTokens"`
	ContextWindow int    `json:"contextWindow"`
	Tokens        struct {
		ContextTokens int `json:"contextTokens"`
		ContextWindow int `json:"contextWindow"`
		Compactions   int `json:"compactions"`
		ReserveTokens int `json:"reserveTokens"`
		KeepRecent    int `json:"keepRecentTokens"`
	} `json:"tokens"`
}

func (s *server) state() state {
	s.t.Helper()
	var st state
	s.call("session/state", nil, &st)
	return st
}

// waitIdle waits until the run is over.
func (s *server) waitIdle() state {
	s.t.Helper()
	var st state
	s.waitFor("idle", func() bool {
		st = s.state()
		return !st.IsRunning && st.Phase == "idle"
	})
	return st
}

func (s *server) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitShown waits until some notification carries text. Display frames
// are coalesced and pushed on their own clock, so a frame can reach the
// client after session/state already answers idle: a test that asserts
// on what the editor was shown waits for it instead of reading once.
func (s *server) waitShown(text, what string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.allNotifications(), text) {
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: no notification carries %q", what, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) prompt(text string) {
	s.t.Helper()
	var res struct {
		Accepted bool   `json:"accepted"`
		Delivery string `json:"delivery"`
	}
	s.call("agent/prompt", map[string]any{"text": text}, &res)
	if !res.Accepted {
		s.t.Fatalf("prompt not accepted: %+v", res)
	}
}

// messages returns the context of the current session as role strings.
func (s *server) entries() []map[string]any {
	s.t.Helper()
	var res struct {
		Entries []map[string]any `json:"entries"`
	}
	s.call("session/entries", map[string]any{}, &res)
	return res.Entries
}

func roles(entries []map[string]any) []string {
	var out []string
	for _, e := range entries {
		if e["type"] != "message" {
			continue
		}
		m := e["message"].(map[string]any)
		r := m["role"].(string)
		if sr, ok := m["stopReason"].(string); ok {
			r += ":" + sr
		}
		out = append(out, r)
	}
	return out
}

// allNotifications concatenates every notification the client got.
func (s *server) allNotifications() string {
	var b strings.Builder
	for _, m := range []string{"display/state", "harness/event", "$/progress", "window/logMessage"} {
		for _, n := range s.Notifications(m) {
			b.Write(n.Params)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// runBinary runs pi-lsp with args in e's world, with no stdin, and returns
// its combined output.
func runBinary(t *testing.T, e *env, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
