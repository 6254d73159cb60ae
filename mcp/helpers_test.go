package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// fakeBin is the fakemcp binary, built once for the package.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pi-lsp-mcp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "fakemcp")
	cmd := exec.Command("go", "build", "-o", fakeBin, "./mcptest/fakemcp")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fakemcp:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the module root.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// writeJSON writes a config file into dir and returns its path.
func writeConfig(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

func status(t *testing.T, m *Manager, name string) Status {
	t.Helper()
	st, _ := m.List()
	for _, s := range st {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, st)
	return Status{}
}

func findTool(t *testing.T, m *Manager, name string) tools.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Definition().Name == name {
			return tl
		}
	}
	var names []string
	for _, tl := range m.Tools() {
		names = append(names, tl.Definition().Name)
	}
	t.Fatalf("no tool %q; have %s", name, strings.Join(names, ", "))
	return nil
}

func call(ctx context.Context, tl tools.Tool, args string) tools.Result {
	return tl.Execute(ctx, tools.Call{ID: "c1", Name: tl.Definition().Name, Args: []byte(args)}, tools.Exec{})
}

func waitState(t *testing.T, m *Manager, name string, want State, d time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := status(t, m, name)
		if s.State == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %q: state %s (%s), want %s", name, s.State, s.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func text(r tools.Result) string { return llm.JoinText(r.Content) }

// approveAll is an Approver that says yes and counts.
type approveCounter struct{ n int }

func (a *approveCounter) approve(context.Context, ServerConfig, string) (bool, bool, error) {
	a.n++
	return true, true, nil
}
