package env

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestFileErrorCodes(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal(dir)
	ctx := context.Background()
	must(t, os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	tests := []struct {
		name string
		op   func() error
		want Code
	}{
		{"read missing", func() error { _, err := l.ReadFile(ctx, "nope"); return err }, CodeNotFound},
		{"read dir", func() error { _, err := l.ReadFile(ctx, "sub"); return err }, CodeIsDirectory},
		{"read under file", func() error { _, err := l.ReadFile(ctx, "file/x"); return err }, CodeNotDirectory},
		{"read aborted", func() error { _, err := l.ReadFile(cancelled, "file"); return err }, CodeAborted},
		{"write dir", func() error { return l.WriteFile(ctx, "sub", []byte("y")) }, CodeIsDirectory},
		{"write under file", func() error { return l.WriteFile(ctx, "file/x/y", []byte("y")) }, CodeNotDirectory},
		{"stat missing", func() error { _, err := l.Stat(ctx, "nope"); return err }, CodeNotFound},
		{"lstat missing", func() error { _, err := l.Lstat(ctx, "nope"); return err }, CodeNotFound},
		{"readdir missing", func() error { _, err := l.ReadDir(ctx, "nope"); return err }, CodeNotFound},
		{"readdir file", func() error { _, err := l.ReadDir(ctx, "file"); return err }, CodeNotDirectory},
		{"realpath missing", func() error { _, err := l.RealPath(ctx, "nope"); return err }, CodeNotFound},
		{"exec missing cwd", func() error {
			_, err := l.Exec(ctx, ExecRequest{Command: "true", Cwd: "nope"}, nil)
			return err
		}, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if got := CodeOf(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "secret")
	must(t, os.WriteFile(p, []byte("x"), 0o000))
	_, err := NewLocal(dir).ReadFile(context.Background(), "secret")
	if CodeOf(err) != CodePermissionDenied {
		t.Fatalf("got %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "big"), make([]byte, 100), 0o644))
	l := NewLocal(dir)
	l.MaxReadBytes = 99
	if _, err := l.ReadFile(context.Background(), "big"); CodeOf(err) != CodeTooLarge {
		t.Fatalf("got %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal(dir)
	ctx := context.Background()

	// New file in new directories: 0755 dirs, 0644 file.
	must(t, l.WriteFile(ctx, "a/b/new.txt", []byte("hello")))
	assertMode(t, filepath.Join(dir, "a"), 0o755|os.ModeDir)
	assertMode(t, filepath.Join(dir, "a/b/new.txt"), 0o644)
	assertContent(t, filepath.Join(dir, "a/b/new.txt"), "hello")

	// Existing file keeps its mode.
	exe := filepath.Join(dir, "run.sh")
	must(t, os.WriteFile(exe, []byte("old"), 0o755))
	must(t, os.Chmod(exe, 0o755))
	must(t, l.WriteFile(ctx, exe, []byte("new")))
	assertMode(t, exe, 0o755)
	assertContent(t, exe, "new")

	// A symlink is followed: the target changes, the link stays a link.
	must(t, os.Symlink("run.sh", filepath.Join(dir, "link")))
	must(t, l.WriteFile(ctx, "link", []byte("via link")))
	assertContent(t, exe, "via link")
	if fi, _ := os.Lstat(filepath.Join(dir, "link")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("symlink replaced by a file")
	}

	// A hard-linked file is written in place, so both names see the change.
	must(t, os.Link(exe, filepath.Join(dir, "hard")))
	must(t, l.WriteFile(ctx, "hard", []byte("both")))
	assertContent(t, exe, "both")

	// No temp files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temp file left: %s", e.Name())
		}
	}
}

func TestReadDirAndStat(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal(dir)
	ctx := context.Background()
	for _, n := range []string{"b", "a", ".hidden"} {
		must(t, os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644))
	}
	must(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(t, os.Symlink("a", filepath.Join(dir, "ln")))
	got, err := l.ReadDir(ctx, ".")
	must(t, err)
	var names []string
	for _, fi := range got {
		names = append(names, fi.Name)
	}
	if strings.Join(names, ",") != ".hidden,a,b,d,ln" {
		t.Fatalf("names = %v", names)
	}
	if !got[3].IsDir || !got[4].IsSymlink {
		t.Fatalf("flags wrong: %+v", got)
	}
	fi, err := l.Stat(ctx, "ln")
	must(t, err)
	if fi.IsSymlink || fi.Size != 1 {
		t.Fatalf("stat does not follow: %+v", fi)
	}
	real, err := l.RealPath(ctx, "ln")
	must(t, err)
	want, _ := filepath.EvalSymlinks(filepath.Join(dir, "a"))
	if real != want {
		t.Fatalf("realpath = %s, want %s", real, want)
	}
}

func TestResolve(t *testing.T) {
	l := NewLocal("/work/x")
	home, _ := os.UserHomeDir()
	tests := []struct{ in, want string }{
		{"", "/work/x"},
		{"a/b", "/work/x/a/b"},
		{"../y", "/work/y"},
		{"/abs//p/", "/abs/p"},
		{"~", home},
		{"~/f", filepath.Join(home, "f")},
		{"~user", "/work/x/~user"},
	}
	for _, tt := range tests {
		if got := l.Resolve(tt.in); got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExecOutputAndExitCode(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal(dir)
	tests := []struct {
		name, cmd string
		env       map[string]string
		wantOut   string
		wantCode  int
	}{
		{"stdout", "echo hi", nil, "hi\n", 0},
		{"interleaved", "echo a; echo b >&2; echo c", nil, "a\nb\nc\n", 0},
		{"exit code", "echo x; exit 3", nil, "x\n", 3},
		{"env", `echo "$FOO"`, map[string]string{"FOO": "bar"}, "bar\n", 0},
		{"cwd", "pwd", nil, dir + "\n", 0},
		{"bash syntax", "[[ 1 == 1 ]] && echo bash", nil, "bash\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := l.Exec(context.Background(), ExecRequest{Command: tt.cmd, Env: tt.env}, func(p []byte) { out.Write(p) })
			must(t, err)
			got := out.String()
			if tt.name == "cwd" {
				real, _ := filepath.EvalSymlinks(dir)
				if got != dir+"\n" && got != real+"\n" {
					t.Fatalf("pwd = %q", got)
				}
			} else if got != tt.wantOut {
				t.Fatalf("output = %q, want %q", got, tt.wantOut)
			}
			if res.ExitCode != tt.wantCode {
				t.Fatalf("exit = %d, want %d", res.ExitCode, tt.wantCode)
			}
		})
	}
}

// TestExecAbortKillsGroup aborts a command whose group holds a background
// child and a foreground child, and checks none of them survives.
func TestExecAbortKillsGroup(t *testing.T) {
	for _, tt := range []struct {
		name, cmd string
		code      Code
		timeout   time.Duration
	}{
		{"abort", "sleep 30 & echo $! >> pids; echo $$ >> pids; sleep 30; echo never", CodeAborted, 0},
		{"timeout", "sleep 30 & echo $! >> pids; echo $$ >> pids; sleep 30; echo never", CodeTimeout, 300 * time.Millisecond},
		{"ignores TERM", "trap '' TERM; sleep 30 & echo $! >> pids; echo $$ >> pids; sleep 30", CodeAborted, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			l := NewLocal(dir)
			l.KillGrace = 200 * time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			var out bytes.Buffer
			if tt.timeout == 0 {
				go func() {
					waitFile(t, filepath.Join(dir, "pids"), 2)
					cancel()
				}()
			}
			res, err := l.Exec(ctx, ExecRequest{Command: tt.cmd, Timeout: tt.timeout}, func(p []byte) {
				mu.Lock()
				out.Write(p)
				mu.Unlock()
			})
			if CodeOf(err) != tt.code || res.ExitCode != -1 {
				t.Fatalf("res=%+v err=%v, want code %s", res, err, tt.code)
			}
			pids := readPids(t, filepath.Join(dir, "pids"))
			if len(pids) != 2 {
				t.Fatalf("pids = %v", pids)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d survived", pid)
				}
			}
			if groupAlive(pids[1]) {
				t.Errorf("group %d survived", pids[1])
			}
			if strings.Contains(out.String(), "never") {
				t.Error("command ran to completion")
			}
		})
	}
}

// TestExecOrphanHoldingPipe: a background grandchild that keeps stdout open
// must not hold Exec until it exits.
func TestExecOrphanHoldingPipe(t *testing.T) {
	dir := t.TempDir()
	l := NewLocal(dir)
	var out bytes.Buffer
	res, err := l.Exec(context.Background(), ExecRequest{Command: "sleep 20 & echo $! > pid; echo done"}, func(p []byte) { out.Write(p) })
	must(t, err)
	pids := readPids(t, filepath.Join(dir, "pid"))
	t.Cleanup(func() { syscall.Kill(pids[0], syscall.SIGKILL) })
	if res.ExitCode != 0 || out.String() != "done\n" {
		t.Fatalf("res=%+v out=%q", res, out.String())
	}
	if !alive(pids[0]) {
		t.Fatal("background child should still be running when Exec returns")
	}
}

func TestExecCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := NewLocal(dir).Exec(ctx, ExecRequest{Command: "touch ran"}, nil)
	if CodeOf(err) != CodeAborted {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("command ran after abort")
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"A=1", "B=2", "C=3"}, map[string]string{"B": "x", "D": "y"})
	if strings.Join(got, " ") != "A=1 C=3 B=x D=y" {
		t.Fatalf("got %v", got)
	}
}

func TestErrorString(t *testing.T) {
	_, err := NewLocal(t.TempDir()).ReadFile(context.Background(), "nope")
	if !strings.Contains(err.Error(), "not_found") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("error text %q", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the os error is not unwrapped")
	}
}

func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0] != "Z" && f[0] != "X"
}

func waitFile(t *testing.T, path string, lines int) {
	for i := 0; i < 500; i++ {
		if data, err := os.ReadFile(path); err == nil && strings.Count(string(data), "\n") >= lines {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%s never got %d lines", path, lines)
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		must(t, err)
		pids = append(pids, n)
	}
	return pids
}

func assertMode(t *testing.T, p string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	must(t, err)
	if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Fatalf("%s mode = %v, want %v", p, got, want)
	}
}

func assertContent(t *testing.T, p, want string) {
	t.Helper()
	data, err := os.ReadFile(p)
	must(t, err)
	if string(data) != want {
		t.Fatalf("%s = %q, want %q", p, data, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
