package mcp

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/mcp/mcptest"
)

// fakeManager is a manager whose user file defines servers running fakemcp
// in the given modes, with $FAKEMCP_LOG in the test's temp dir.
func fakeManager(t *testing.T, opts Options, modes map[string]string) (*Manager, string) {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "fake.log")
	var entries []string
	for name, mode := range modes {
		entries = append(entries, fmt.Sprintf(`%q: {"command": %q, "args": [%q], "env": {"FAKEMCP_LOG": %q}}`, name, fakeBin, mode, logPath))
	}
	opts.UserFile = writeConfig(t, dir, "mcp.json", `{"mcpServers": {`+strings.Join(entries, ",")+`}}`)
	if opts.Cwd == "" {
		opts.Cwd = dir
	}
	m := NewManager(opts)
	t.Cleanup(m.Close)
	return m, logPath
}

func TestFakeServerToolsAndListChanged(t *testing.T) {
	m, _ := fakeManager(t, Options{}, map[string]string{"fake": "ok"})
	if s := status(t, m, "fake"); s.State != StatePending {
		t.Fatalf("before the first turn: %s", s.State)
	}
	ctx := context.Background()
	m.Start(ctx, nil)
	s := waitState(t, m, "fake", StateReady, time.Second)
	if len(s.Tools) != 5 || len(s.Prompts) != 1 || len(s.Resources) != 1 {
		t.Fatalf("status: %+v", s)
	}
	echo := findTool(t, m, "mcp__fake__echo")
	def := echo.Definition()
	if !strings.Contains(string(def.Parameters), `"text"`) || def.Description != "Echoes the text back" || echo.Category() != "mcp" {
		t.Fatalf("definition: %+v %s", def, def.Parameters)
	}
	r := call(ctx, echo, `{"text":"hi"}`)
	if r.IsError || text(r) != "echo: hi" {
		t.Fatalf("echo: %+v", r)
	}
	// grow adds a tool and the server announces list_changed; the next
	// Start (the next turn) picks it up.
	if r := call(ctx, findTool(t, m, "mcp__fake__grow"), `{}`); r.IsError {
		t.Fatalf("grow: %+v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		m.Start(ctx, nil)
		if len(status(t, m, "fake").Tools) == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list_changed did not refresh the tools: %+v", status(t, m, "fake").Tools)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := call(ctx, findTool(t, m, "mcp__fake__extra"), `{}`); text(r) != "extra!" {
		t.Fatalf("extra: %+v", r)
	}
	// Prompts and resources.
	got, err := m.ExpandCommand(ctx, "/mcp:fake:greet Ada")
	if err != nil || got != "Say hello to Ada." {
		t.Fatalf("prompt: %q %v", got, err)
	}
	if _, err := m.ExpandCommand(ctx, "/mcp:fake:greet"); err == nil || !strings.Contains(err.Error(), `"who"`) {
		t.Fatalf("missing argument: %v", err)
	}
	res, err := m.ReadResource(ctx, "", "fake://readme")
	if err != nil || !strings.Contains(res, "fake content 42") {
		t.Fatalf("resource: %q %v", res, err)
	}
	if cmds := m.Commands(); len(cmds) != 1 || cmds[0].Name != "mcp:fake:greet" {
		t.Fatalf("commands: %+v", cmds)
	}
}

func TestBadServers(t *testing.T) {
	m, _ := fakeManager(t, Options{StartTimeout: 1500 * time.Millisecond},
		map[string]string{"garbage": "garbage", "exit": "exit", "hang": "hang", "good": "ok"})
	start := time.Now()
	m.Start(context.Background(), nil)
	t.Logf("Start with a hung server took %s (timeout 1.5s)", time.Since(start).Round(time.Millisecond))
	if s := status(t, m, "good"); s.State != StateReady {
		t.Fatalf("good: %+v", s)
	}
	if s := status(t, m, "exit"); s.State != StateFailed || !strings.Contains(s.Error, "cannot open the database") {
		t.Fatalf("exit: %+v", s)
	}
	if s := status(t, m, "hang"); s.State != StateFailed || !strings.Contains(s.Error, "did not start within 1.5s") {
		t.Fatalf("hang: %+v", s)
	}
	if s := status(t, m, "garbage"); s.State != StateFailed || s.Error == "" {
		t.Fatalf("garbage: %+v", s)
	}
	for _, tl := range m.Tools() {
		if !strings.HasPrefix(tl.Definition().Name, "mcp__good__") {
			t.Fatalf("tool of a failed server offered: %s", tl.Definition().Name)
		}
	}
}

func TestCrashRestartsWithBackoff(t *testing.T) {
	m, logPath := fakeManager(t, Options{}, map[string]string{"fake": "ok"})
	ctx := context.Background()
	m.Start(ctx, nil)
	waitState(t, m, "fake", StateReady, time.Second)
	r := call(ctx, findTool(t, m, "mcp__fake__crash"), `{}`)
	if !r.IsError {
		t.Fatalf("crash returned %+v", r)
	}
	// The watcher notices the exit, waits the first backoff and starts it again.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(readLog(t, logPath), "start ok") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not restarted; log:\n%s\nstatus %+v", readLog(t, logPath), status(t, m, "fake"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := waitState(t, m, "fake", StateReady, 5*time.Second)
	if s.Restart != 1 {
		t.Fatalf("restarts: %d", s.Restart)
	}
	if r := call(ctx, findTool(t, m, "mcp__fake__echo"), `{"text":"back"}`); text(r) != "echo: back" {
		t.Fatalf("after restart: %+v", r)
	}
	// mcp/restart by hand.
	st, err := m.Restart(ctx, "fake", nil)
	if err != nil || st.State != StateReady {
		t.Fatalf("restart: %+v %v", st, err)
	}
	if n := strings.Count(readLog(t, logPath), "start ok"); n != 3 {
		t.Fatalf("starts: %d", n)
	}
	if _, err := m.Restart(ctx, "nope", nil); err == nil {
		t.Fatal("restart of an unknown server succeeded")
	}
}

func TestCallTimeoutAndAbortCancel(t *testing.T) {
	m, logPath := fakeManager(t, Options{CallTimeout: 300 * time.Millisecond}, map[string]string{"fake": "ok"})
	ctx := context.Background()
	m.Start(ctx, nil)
	waitState(t, m, "fake", StateReady, time.Second)
	slow := findTool(t, m, "mcp__fake__slow")
	r := call(ctx, slow, `{}`)
	if !r.IsError || !strings.Contains(text(r), "timed out after 300ms") {
		t.Fatalf("timeout: %+v", r)
	}
	waitLog(t, logPath, "cancelled slow", 1)

	actx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	m2 := m
	_ = m2
	r = call(actx, slow, `{}`)
	if !r.IsError || !strings.Contains(text(r), "aborted") {
		t.Fatalf("abort: %+v", r)
	}
	// notifications/cancelled reached the server: its handler saw ctx end.
	waitLog(t, logPath, "cancelled slow", 2)
}

func waitLog(t *testing.T, path, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(readLog(t, path), line) < n {
		if time.Now().After(deadline) {
			t.Fatalf("log has %d×%q, want %d:\n%s", strings.Count(readLog(t, path), line), line, n, readLog(t, path))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHTTPHeaderTokenExpanded(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(mcptest.HTTPHandler("s3cr3t-token", func(a string) { mu.Lock(); seen = append(seen, a); mu.Unlock() }))
	defer srv.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"mcpServers": {
  "remote": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${TOKEN}"}},
  "nokey": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${NO_SUCH_TOKEN}"}},
  "deflt": {"type": "http", "url": "${MCP_URL:-%s}", "headers": {"Authorization": "Bearer ${WRONG:-nope}"}}
}}`, srv.URL, srv.URL, srv.URL)
	m := NewManager(Options{Cwd: dir, UserFile: writeConfig(t, dir, "mcp.json", cfg), Environ: []string{"TOKEN=s3cr3t-token"}, StartTimeout: 5 * time.Second})
	defer m.Close()
	m.Start(context.Background(), nil)
	if s := status(t, m, "remote"); s.State != StateReady {
		t.Fatalf("remote: %+v", s)
	}
	if s := status(t, m, "nokey"); s.State != StateFailed || !strings.Contains(s.Error, "${NO_SUCH_TOKEN} is not set") {
		t.Fatalf("nokey: %+v", s)
	}
	if s := status(t, m, "deflt"); s.State != StateFailed || !strings.Contains(s.Error, "401") && !strings.Contains(strings.ToLower(s.Error), "unauthorized") {
		t.Fatalf("deflt (wrong token): %+v", s)
	}
	r := call(context.Background(), findTool(t, m, "mcp__remote__echo"), `{"text":"over http"}`)
	if text(r) != "echo: over http" {
		t.Fatalf("echo: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if !containsStr(seen, "Bearer s3cr3t-token") {
		t.Fatalf("the server never saw the expanded token: %q", seen)
	}
	// The status shows the configured (unexpanded) target.
	if s := status(t, m, "deflt"); !strings.Contains(s.Target, "${MCP_URL:-") {
		t.Fatalf("target: %q", s.Target)
	}
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestProjectServerApproval(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "home", "pi-lsp.json")
	writeConfig(t, dir, "home/pi-lsp.json", `{"compaction": {"x/y": {"reserveTokens": 1}}}`)
	project := filepath.Join(dir, "proj")
	logPath := filepath.Join(dir, "fake.log")
	mk := func(mode string) *Manager {
		p := writeConfig(t, project, ".mcp.json", fmt.Sprintf(`{"mcpServers": {"p": {"command": %q, "args": [%q], "env": {"FAKEMCP_LOG": %q}}},
  "enabledMcpjsonServers": ["anything"]}`, fakeBin, mode, logPath))
		m := NewManager(Options{Cwd: project, ProjectFile: p, Trust: NewTrust(settings)})
		t.Cleanup(m.Close)
		return m
	}
	ctx := context.Background()
	// No approver: disabled, nothing runs.
	m := mk("ok")
	m.Start(ctx, nil)
	if s := status(t, m, "p"); s.State != StateDisabled || readLog(t, logPath) != "" {
		t.Fatalf("unapproved server: %+v, log %q", s, readLog(t, logPath))
	}
	// Approved once: remembered in the user's file; a second manager does not ask.
	a := &approveCounter{}
	m = mk("ok")
	m.Start(ctx, a.approve)
	if s := status(t, m, "p"); s.State != StateReady || a.n != 1 {
		t.Fatalf("approved: %+v asks %d", s, a.n)
	}
	key := status(t, m, "p").ApprovalKey
	if !strings.HasPrefix(key, project+"#p#") || !strings.Contains(readLog(t, settings), key) || !strings.Contains(readLog(t, settings), `"compaction"`) {
		t.Fatalf("settings after approval:\n%s (key %s)", readLog(t, settings), key)
	}
	m = mk("ok")
	m.Start(ctx, a.approve)
	if a.n != 1 || status(t, m, "p").State != StateReady {
		t.Fatalf("asked again: %d", a.n)
	}
	// A changed command asks again.
	m = mk("exit")
	m.Start(ctx, a.approve)
	if a.n != 2 {
		t.Fatalf("changed command: asks %d", a.n)
	}
	// A declined server is remembered as declined.
	m = mk("hang")
	m.Start(ctx, func(context.Context, ServerConfig, string) (bool, bool, error) { return false, true, nil })
	m = mk("hang")
	m.Start(ctx, a.approve)
	if s := status(t, m, "p"); s.State != StateDisabled || a.n != 2 || !strings.Contains(readLog(t, settings), KeyDisabledServers) {
		t.Fatalf("declined: %+v asks %d", s, a.n)
	}
}

func TestPrecedenceAndDiagnostics(t *testing.T) {
	dir := t.TempDir()
	proj := writeConfig(t, dir, "proj/.mcp.json", "{\n  \"mcpServers\": {\n    \"dup\": {\"command\": \"project-cmd\"},\n    \"bad\": {\"type\": \"ftp\", \"url\": \"x\"}\n  }\n}\n")
	user := writeConfig(t, dir, "mcp.json", "{\"mcpServers\": {\"dup\": {\"command\": \"user-cmd\"}, \"u\": {\"command\": \"${NOPE}\"}}}")
	m := NewManager(Options{Cwd: filepath.Dir(proj), ProjectFile: proj, UserFile: user,
		Session: FromACP([]ACPServer{{Name: "dup", Command: "session-cmd"}})})
	defer m.Close()
	st, diags := m.List()
	if len(st) != 3 || st[0].Name != "dup" || st[0].Source != SourceSession || st[0].Target != "session-cmd" {
		t.Fatalf("servers: %+v", st)
	}
	var notices int
	for _, d := range diags {
		if d.Server == "dup" && strings.Contains(d.Message, "the session definition") {
			notices++
		}
	}
	if notices != 2 {
		t.Fatalf("diagnostics: %+v", diags)
	}
	m.Start(context.Background(), nil)
	if s := status(t, m, "bad"); s.State != StateFailed || !strings.Contains(s.Error, `unknown type "ftp"`) {
		t.Fatalf("bad: %+v", s)
	}
	if s := status(t, m, "u"); s.State != StateFailed || !strings.Contains(s.Error, "${NOPE} is not set") {
		t.Fatalf("u: %+v", s)
	}
	// A malformed project file: diagnostic with its line, the user file still loads.
	writeConfig(t, dir, "proj/.mcp.json", "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"a\"\n  }\n}\n")
	m2 := NewManager(Options{Cwd: filepath.Dir(proj), ProjectFile: proj, UserFile: user})
	defer m2.Close()
	st, diags = m2.List()
	if len(st) != 2 || len(diags) != 1 || diags[0].File != proj || diags[0].Line != 6 {
		t.Fatalf("malformed: servers %+v diags %+v", st, diags)
	}
}
