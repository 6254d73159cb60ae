package langserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/langserver/langservertest"
)

// The test binary is the fake server when FAKELSP_MODE is set.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("FAKELSP_MODE"); ok && os.Getenv("FAKELSP_CHILD") == "1" {
		_ = langservertest.Serve(os.Stdin, os.Stdout, mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type notices struct {
	mu sync.Mutex
	n  []string
}

func (n *notices) add(s string) { n.mu.Lock(); n.n = append(n.n, s); n.mu.Unlock() }
func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.n...)
}

func newFake(t *testing.T, mode string) (*Manager, string, *notices) {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	nt := &notices{}
	m := New(Options{
		Root:         dir,
		Servers:      []ServerConfig{{Name: "fake", Command: []string{exe}, Extensions: []string{".fk"}}},
		Environ:      append(os.Environ(), "FAKELSP_MODE="+mode, "FAKELSP_CHILD=1"),
		Notice:       nt.add,
		StartTimeout: 3 * time.Second,
	})
	t.Cleanup(m.Close)
	return m, dir, nt
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiagnosticsFollowChanges(t *testing.T) {
	m, dir, _ := newFake(t, langservertest.ModeNormal)
	p := filepath.Join(dir, "a.fk")
	write(t, p, "fine\nWARN: old warning\n")
	ctx := context.Background()
	got, err := m.Diagnostics(ctx, []string{p}, 2*time.Second)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 1 || got[0].Diagnostics[0].Message != "old warning" {
		t.Fatalf("before: %+v, %v", got, err)
	}
	write(t, p, "fine\nWARN: old warning\n  ERR: undefined: frobnicate\n")
	got, err = m.Diagnostics(ctx, []string{p}, 2*time.Second)
	if err != nil || len(got) != 1 || len(got[0].Diagnostics) != 2 {
		t.Fatalf("after: %+v, %v", got, err)
	}
	d := got[0].Diagnostics[1]
	if d.Message != "undefined: frobnicate" || d.Severity != SeverityError || d.Range.Start.Line != 2 || d.Range.Start.Character != 2 {
		t.Fatalf("diagnostic: %+v", d)
	}
	// Files no server serves are left out; outside ones never reach one.
	other := filepath.Join(dir, "b.txt")
	write(t, other, "ERR: x")
	outside := filepath.Join(t.TempDir(), "c.fk")
	write(t, outside, "ERR: x")
	got, err = m.Diagnostics(ctx, []string{other, outside}, time.Second)
	if err != nil || len(got) != 0 {
		t.Fatalf("unserved/outside: %+v, %v", got, err)
	}
	if _, err := m.Navigate(ctx, OpDefinition, outside, Position{}, ""); !errors.Is(err, ErrOutside) {
		t.Fatalf("navigate outside: %v", err)
	}
}

func TestNavigateDefinitionAndHover(t *testing.T) {
	m, dir, _ := newFake(t, langservertest.ModeNormal)
	write(t, filepath.Join(dir, "lib.fk"), "package x\n\nfunc helper() {}\n")
	p := filepath.Join(dir, "main.fk")
	write(t, p, "package x\n\nfunc main() {\n\thelper()\n}\n")
	ctx := context.Background()
	res, err := m.Navigate(ctx, OpDefinition, p, Position{Line: 3, Character: 2}, "")
	if err != nil || len(res.Locations) != 1 {
		t.Fatalf("definition: %+v, %v", res, err)
	}
	l := res.Locations[0]
	if filepath.Base(l.Path) != "lib.fk" || l.Range.Start.Line != 2 || l.Range.Start.Character != 5 {
		t.Fatalf("definition location: %+v", l)
	}
	res, err = m.Navigate(ctx, OpHover, p, Position{Line: 3, Character: 2}, "")
	if err != nil || res.Hover != "hover: helper" {
		t.Fatalf("hover: %+v, %v", res, err)
	}
	if _, err := m.Navigate(ctx, "frob", p, Position{}, ""); err == nil {
		t.Fatal("unknown op accepted")
	}
}

func TestFaultyServers(t *testing.T) {
	for _, mode := range []string{langservertest.ModeCrash, langservertest.ModeGarbage, langservertest.ModeHang} {
		t.Run(mode, func(t *testing.T) {
			m, dir, nt := newFake(t, mode)
			p := filepath.Join(dir, "a.fk")
			write(t, p, "ERR: x\n")
			ctx := context.Background()
			var ua *UnavailableError
			for i := 0; i < 3; i++ {
				_, err := m.Diagnostics(ctx, []string{p}, 500*time.Millisecond)
				if !errors.As(err, &ua) {
					t.Fatalf("call %d: %v, want *UnavailableError", i, err)
				}
			}
			if mode != langservertest.ModeHang && len(nt.all()) != 1 {
				t.Fatalf("notices %q, want one give-up notice", nt.all())
			}
			sl := m.slots["fake"]
			sl.mu.Lock()
			gaveUp, srv := sl.gaveUp, sl.srv
			sl.mu.Unlock()
			if gaveUp == "" || srv != nil {
				t.Fatalf("slot: gaveUp %q srv %v", gaveUp, srv)
			}
			if mode == langservertest.ModeHang && !strings.Contains(gaveUp, "initialize") {
				t.Fatalf("hang reason %q", gaveUp)
			}
		})
	}
}

func TestMissingServer(t *testing.T) {
	dir := t.TempDir()
	m := New(Options{Root: dir, Servers: []ServerConfig{{Name: "nope", Command: []string{"pi-lsp-no-such-server"}, Extensions: []string{".fk"}}}})
	defer m.Close()
	p := filepath.Join(dir, "a.fk")
	write(t, p, "x")
	_, err := m.Diagnostics(context.Background(), []string{p}, time.Second)
	var ua *UnavailableError
	if !errors.As(err, &ua) || !strings.Contains(ua.Reason, "not installed") {
		t.Fatalf("err %v", err)
	}
}

func TestResolve(t *testing.T) {
	look := func(p string) (string, error) {
		if p == "gopls" || p == "clangd" {
			return "/bin/" + p, nil
		}
		return "", os.ErrNotExist
	}
	got := Resolve(map[string]ServerConfig{
		"clangd": {Disabled: true},
		"mine":   {Command: []string{"mine-ls"}, Extensions: []string{".mn"}},
	}, look)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "gopls,mine" {
		t.Fatalf("resolved %v", names)
	}
}

func TestSilentServerReturnsWithinTheDeadline(t *testing.T) {
	m, dir, _ := newFake(t, langservertest.ModeSilent)
	var paths []string
	for _, n := range []string{"a.fk", "b.fk", "c.fk"} {
		p := filepath.Join(dir, n)
		write(t, p, "ERR: x\n")
		paths = append(paths, p)
	}
	// The server never publishes: every file comes back empty, no error.
	got, err := m.Diagnostics(context.Background(), paths, 200*time.Millisecond)
	if err != nil || len(got) != 3 {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, f := range got {
		if len(f.Diagnostics) != 0 {
			t.Fatalf("%s: %+v", f.Path, f.Diagnostics)
		}
	}
}
