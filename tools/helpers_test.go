package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

// fixture is a temp directory with the real env.Local over it and a fresh
// tool set.
type fixture struct {
	t     *testing.T
	dir   string
	env   *env.Local
	tools map[string]Tool
	host  Host
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: dir, env: env.NewLocal(dir), tools: ByName(Builtins())}
}

// write creates files: path -> content.
func (f *fixture) write(files map[string]string) {
	f.t.Helper()
	for p, c := range files {
		abs := filepath.Join(f.dir, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) read(p string) string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, p))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// run calls a tool with args (marshalled to JSON unless already a string).
func (f *fixture) run(name string, args any) Result {
	return f.runCtx(context.Background(), name, args)
}

func (f *fixture) runCtx(ctx context.Context, name string, args any) Result {
	f.t.Helper()
	t, ok := f.tools[name]
	if !ok {
		f.t.Fatalf("no tool %q", name)
	}
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			f.t.Fatal(err)
		}
		raw = b
	}
	return t.Execute(ctx, Call{ID: "call_1", Name: name, Args: raw}, Exec{Env: f.env, Host: f.host})
}

// ok asserts a successful result and returns its text.
func ok(t *testing.T, r Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("unexpected error result: %s", r.Text())
	}
	return r.Text()
}

// fails asserts an error result containing want.
func fails(t *testing.T, r Result, want string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("expected an error containing %q, got success: %s", want, r.Text())
	}
	if !strings.Contains(r.Text(), want) {
		t.Fatalf("error %q does not contain %q", r.Text(), want)
	}
}

func details(t *testing.T, r Result) map[string]any {
	t.Helper()
	m := map[string]any{}
	if len(r.Details) == 0 {
		return m
	}
	if err := json.Unmarshal(r.Details, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func numberedLines(n int, prefix string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		b.WriteString(prefix)
		b.WriteString(" ")
		b.WriteString(itoa(i))
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
