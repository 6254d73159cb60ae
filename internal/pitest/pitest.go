package pitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot returns the directory holding go.mod, walking up from the
// working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("pitest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// packageDir is pi's installed package directory.
func packageDir(root string) string {
	return filepath.Join(root, "test", "pi", "node_modules", "@mariozechner", "pi-coding-agent")
}

// unavailable skips the test, or fails it when $CI is set.
func unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s (CI is set: run `npm ci --prefix test/pi`)", msg)
	}
	tb.Skipf("%s; run `npm ci --prefix test/pi` to enable", msg)
}

// Bin returns the path of the pi binary in test/pi/node_modules.
func Bin(tb testing.TB) string {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	bin := filepath.Join(root, "test", "pi", "node_modules", ".bin", "pi")
	if _, err := os.Stat(bin); err != nil {
		unavailable(tb, "pi is not installed at %s", bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(tb, "node is not on PATH")
	}
	return bin
}

// Env returns an environment for pi with a private HOME (removed after the
// test) whose ~/.pi/agent/models.json has one provider, "fake", with model
// "fake-model" served at baseURL (an OpenAI-compatible /v1 URL). pi runs
// offline (PI_OFFLINE=1).
func Env(tb testing.TB, baseURL string) []string {
	tb.Helper()
	home := tb.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o700); err != nil {
		tb.Fatal(err)
	}
	models := map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": baseURL, "api": "openai-completions", "apiKey": "fake-key",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": "fake-model", "contextWindow": 128000, "maxTokens": 16384}},
	}}}
	b, _ := json.Marshal(models) // plain maps always encode
	if err := os.WriteFile(filepath.Join(agent, "models.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PI_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "PI_OFFLINE=1")
}

// RPC is a running `pi --mode rpc`.
type RPC struct {
	tb     testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	mu     sync.Mutex
	seq    int
	done   chan error
	// Events holds every non-response line seen so far.
	Events []json.RawMessage
}

// Start runs `pi --mode rpc args...` in dir with env. It is stopped when
// the test ends.
func Start(tb testing.TB, env []string, dir string, args ...string) *RPC {
	tb.Helper()
	cmd := exec.Command(Bin(tb), append([]string{"--mode", "rpc"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	r := &RPC{tb: tb, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1024), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = &lockedWriter{w: r.stderr, mu: &r.mu}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			r.lines <- append([]byte(nil), bytes.TrimSuffix(sc.Bytes(), []byte("\r"))...)
		}
		close(r.lines)
		r.done <- cmd.Wait()
	}()
	tb.Cleanup(func() { r.Close() })
	return r
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Stderr returns what pi wrote to stderr so far.
func (r *RPC) Stderr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// Call sends a command (its "id" is set) and returns the data of its
// response, or an error if pi answered success=false.
func (r *RPC) Call(ctx context.Context, command map[string]any) (json.RawMessage, error) {
	r.seq++
	id := fmt.Sprintf("req-%d", r.seq)
	c := map[string]any{"id": id}
	for k, v := range command {
		c[k] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if _, err := r.stdin.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("pitest: send %s: %w (stderr: %s)", command["type"], err, r.Stderr())
	}
	for {
		line, err := r.next(ctx)
		if err != nil {
			return nil, fmt.Errorf("pitest: %s: %w", command["type"], err)
		}
		var resp struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Success bool            `json:"success"`
			Error   string          `json:"error"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(line, &resp) == nil && resp.Type == "response" && resp.ID == id {
			if !resp.Success {
				return nil, fmt.Errorf("pitest: %s failed: %s", command["type"], resp.Error)
			}
			return resp.Data, nil
		}
		r.Events = append(r.Events, line)
	}
}

// WaitFor reads events until one of the given type arrives and returns it.
func (r *RPC) WaitFor(ctx context.Context, eventType string) (json.RawMessage, error) {
	for {
		line, err := r.next(ctx)
		if err != nil {
			return nil, fmt.Errorf("pitest: waiting for %s: %w", eventType, err)
		}
		r.Events = append(r.Events, line)
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == eventType {
			return line, nil
		}
	}
}

func (r *RPC) next(ctx context.Context) ([]byte, error) {
	select {
	case line, ok := <-r.lines:
		if !ok {
			return nil, fmt.Errorf("pi exited (stderr: %s)", r.Stderr())
		}
		return line, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (stderr: %s)", ctx.Err(), r.Stderr())
	}
}

// Close ends pi: stdin is closed, and pi is killed if it has not exited
// within five seconds.
func (r *RPC) Close() error {
	r.stdin.Close()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(5 * time.Second):
		r.cmd.Process.Kill()
		return errors.New("pitest: pi did not exit; killed")
	}
}

// BuildContext runs pi's own loadEntriesFromFile, migrateSessionEntries and
// buildSessionContext (leaf = the last entry, as pi's SessionManager sets
// it on load) on a session file, and returns the context messages as pi
// makes them. The file is not changed.
func BuildContext(tb testing.TB, sessionPath string) []json.RawMessage {
	tb.Helper()
	Bin(tb)
	root, err := RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	sm := filepath.Join(packageDir(root), "dist", "core", "session-manager.js")
	script := `
const { pathToFileURL } = await import("node:url");
const m = await import(pathToFileURL(process.argv[1]).href);
const entries = m.loadEntriesFromFile(process.argv[2]);
m.migrateSessionEntries(entries);
const body = entries.filter((e) => e.type !== "session");
const ctx = m.buildSessionContext(body);
process.stdout.write(JSON.stringify(ctx.messages));
`
	cmd := exec.Command("node", "--input-type=module", "-e", script, sm, sessionPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("pitest: node buildSessionContext: %v\n%s", err, stderr.String())
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(out, &msgs); err != nil {
		tb.Fatalf("pitest: node output: %v\n%s", err, out)
	}
	return msgs
}

// ListedSession is one session of pi's own SessionManager.list.
type ListedSession struct {
	Path     string `json:"path"`
	Modified string `json:"modified"`
}

// ListSessions runs pi's own SessionManager.list(cwd, dir) and returns the
// sessions in pi's order (newest first) with their modified times.
func ListSessions(tb testing.TB, cwd, dir string) []ListedSession {
	tb.Helper()
	Bin(tb)
	root, err := RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	sm := filepath.Join(packageDir(root), "dist", "core", "session-manager.js")
	script := `
const { pathToFileURL } = await import("node:url");
const m = await import(pathToFileURL(process.argv[1]).href);
const list = await m.SessionManager.list(process.argv[2], process.argv[3]);
process.stdout.write(JSON.stringify(list.map((s) => ({ path: s.path, modified: s.modified.toISOString() }))));
`
	cmd := exec.Command("node", "--input-type=module", "-e", script, sm, cwd, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("pitest: node SessionManager.list: %v\n%s", err, stderr.String())
	}
	var list []ListedSession
	if err := json.Unmarshal(out, &list); err != nil {
		tb.Fatalf("pitest: node output: %v\n%s", err, out)
	}
	return list
}
