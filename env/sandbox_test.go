package env

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMain lets the test binary play pi-lsp's sandbox helper: run as
// "env.test __sandbox-exec …" it restricts itself and execs the command;
// as "env.test __job-run …" it supervises a background job.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SandboxExecCommand {
		err := SandboxExec(os.Args[2:], os.Environ())
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	if len(os.Args) > 1 && os.Args[1] == JobRunCommand {
		os.Exit(JobRun(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}

func TestParseSandboxArgs(t *testing.T) {
	p := SandboxPolicy{Mode: SandboxWorkspaceWrite, Writable: []string{"/a", "/b c"}, NoNetwork: true}
	args := append(sandboxArgs(p), "bash", "-c", "true")
	got, argv, err := ParseSandboxArgs(args[1:])
	if err != nil || got.Mode != p.Mode || strings.Join(got.Writable, "|") != "/a|/b c" || !got.NoNetwork || strings.Join(argv, " ") != "bash -c true" {
		t.Fatalf("%+v %v %v", got, argv, err)
	}
	for _, bad := range [][]string{{}, {"--mode"}, {"--mode", "wide", "--", "x"}, {"--what"}, {"--mode", "off", "--"}} {
		if _, _, err := ParseSandboxArgs(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// sandboxDir is a directory outside the temp directories (which
// workspace-write leaves writable).
func sandboxDir(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	d, err := os.MkdirTemp(home, ".pi-lsp-env-sandbox-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	for _, tmp := range TempDirs() {
		if Within(d, ResolveLinks(tmp)) {
			t.Skip("the home directory is under a temp directory")
		}
	}
	return d
}

// The real Landlock through Local.Exec: workspace-write writes the
// workspace, not beside it; read-only writes nothing.
func TestLocalExecSandboxed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux only")
	}
	if ok, why := landlockAvailable(); !ok {
		t.Skip(why)
	}
	base := sandboxDir(t)
	ws := filepath.Join(base, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocal(ws)
	l.SandboxHelper = exe
	run := func(p SandboxPolicy, cmd string) (int, string) {
		var out bytes.Buffer
		res, err := l.Exec(context.Background(), ExecRequest{Command: cmd, Sandbox: &p}, func(b []byte) { out.Write(b) })
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if res.Sandboxed != p.Mode {
			t.Fatalf("ran under %q", res.Sandboxed)
		}
		return res.ExitCode, out.String()
	}
	ww := SandboxPolicy{Mode: SandboxWorkspaceWrite, Writable: []string{ws}}
	if code, out := run(ww, "touch inside && echo ok > /dev/null && cat /etc/hostname >/dev/null"); code != 0 {
		t.Fatalf("inside write: %d %s", code, out)
	}
	code, out := run(ww, "touch ../outside")
	if code == 0 || !LooksDenied(out) {
		t.Fatalf("outside write: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(base, "outside")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
	if code, out := run(SandboxPolicy{Mode: SandboxReadOnly}, "touch ro"); code == 0 || !LooksDenied(out) {
		t.Fatalf("read-only write: %d %q", code, out)
	}
}

func TestSandboxAvailableSwitch(t *testing.T) {
	t.Setenv(NoLandlockEnv, "1")
	if ok, why := SandboxAvailable(); ok || !strings.Contains(why, NoLandlockEnv) {
		t.Fatalf("%v %q", ok, why)
	}
}

func TestWorkspaceJudge(t *testing.T) {
	base := t.TempDir()
	ws, out, ro := filepath.Join(base, "ws"), filepath.Join(base, "out"), filepath.Join(base, "skills")
	for _, d := range []string{ws, out, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "new.txt"), filepath.Join(ws, "dangling")); err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace([]string{ws}, []string{ro})
	rout := ResolveLinks(out)
	cases := []struct {
		path   string
		write  bool
		inside bool
	}{
		{filepath.Join(ws, "a.txt"), true, true},
		{filepath.Join(ws, "new", "deep", "x"), true, true},
		{filepath.Join(ws, "..", "out", "x"), false, false},
		{filepath.Join(ws, "link", "x"), false, false},
		{filepath.Join(ws, "dangling"), true, false},
		{filepath.Join(ro, "s.md"), false, true},
		{filepath.Join(ro, "s.md"), true, false},
		{ws + "-sibling/x", false, false},
	}
	for _, c := range cases {
		resolved, inside := w.Judge(c.path, c.write)
		if inside != c.inside {
			t.Errorf("%s (write %v): inside %v, want %v (resolved %s)", c.path, c.write, inside, c.inside, resolved)
		}
	}
	if r, _ := w.Judge(filepath.Join(ws, "link", "x"), false); r != filepath.Join(rout, "x") {
		t.Errorf("resolved %s", r)
	}
}
