package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"stdout", map[string]any{"command": "echo hello"}, "hello\n", false},
		{"stderr interleaved", map[string]any{"command": "echo a; echo b >&2; echo c"}, "a\nb\nc\n", false},
		{"no output", map[string]any{"command": "true"}, "(no output)", false},
		{"exit code", map[string]any{"command": "echo out; exit 7"}, "out\n\n\nCommand exited with code 7", true},
		{"exit code without output", map[string]any{"command": "exit 2"}, "Command exited with code 2", true},
		{"timeout", map[string]any{"command": "echo start; sleep 30", "timeout": 0.3}, "start\n\n\nCommand timed out after 0.3 seconds", true},
		{"timeout as string", map[string]any{"command": "sleep 30", "timeout": "0.2"}, "Command timed out after 0.2 seconds", true},
		{"empty command", map[string]any{"command": "  "}, "bash: command is required", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.run("bash", tt.args)
			if r.IsError != tt.isError || r.Text() != tt.want {
				t.Fatalf("got isError=%v %q, want %v %q", r.IsError, r.Text(), tt.isError, tt.want)
			}
		})
	}
}

func TestBashExitCodeDetails(t *testing.T) {
	f := newFixture(t)
	d := details(t, f.run("bash", map[string]any{"command": "exit 3"}))
	if d["exitCode"].(float64) != 3 {
		t.Fatalf("details %v", d)
	}
	d = details(t, f.run("bash", map[string]any{"command": "true"}))
	if d["exitCode"].(float64) != 0 {
		t.Fatalf("details %v", d)
	}
}

func TestBashRunsInCwd(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"marker": "m"})
	if got := ok(t, f.run("bash", map[string]any{"command": "cat marker"})); got != "m" {
		t.Fatalf("got %q", got)
	}
}

func TestBashTailTruncation(t *testing.T) {
	tests := []struct {
		name, cmd, suffix string
		totalLines        int
	}{
		{"lines", "seq 1 3000", "[Showing lines 1001-3000 of 3000. Full output: ", 3000},
		{"bytes", `for i in $(seq 1 1000); do printf '%0100d\n' $i; done`, "(50.0KB limit). Full output: ", 1000},
		{"one long line", `head -c 60000 /dev/zero | tr '\0' x`, "[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: ", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.run("bash", map[string]any{"command": tt.cmd})
			text := ok(t, r)
			d := details(t, r)
			path, _ := d["fullOutputPath"].(string)
			if path == "" {
				t.Fatalf("no fullOutputPath in %v", d)
			}
			t.Cleanup(func() { os.Remove(path) })
			if !strings.Contains(text, tt.suffix+path+"]") {
				t.Fatalf("notice missing: %q", tail(text, 200))
			}
			tr := d["truncation"].(map[string]any)
			if int(tr["totalLines"].(float64)) != tt.totalLines {
				t.Fatalf("truncation %v", tr)
			}
			body := text[:strings.LastIndex(text, "\n\n[")]
			if len(body) > DefaultMaxBytes || strings.Count(body, "\n") >= DefaultMaxLines {
				t.Fatalf("kept %d bytes, %d lines", len(body), strings.Count(body, "\n")+1)
			}
			full := readFile(t, path)
			want := ok(t, newFixture(t).run("bash", map[string]any{"command": tt.cmd + " > out; cat out | wc -c"}))
			if strconv.Itoa(len(full)) != strings.TrimSpace(want) {
				t.Fatalf("full output file has %d bytes, command wrote %s", len(full), want)
			}
			if !strings.HasSuffix(strings.TrimSuffix(full, "\n"), body) {
				t.Fatal("kept text is not the tail of the full output")
			}
		})
	}
}

// TestBashLineBoundary: 2000 lines (with the usual final newline) fit, 2001
// do not.
func TestBashLineBoundary(t *testing.T) {
	f := newFixture(t)
	r := f.run("bash", map[string]any{"command": "seq 1 2000"})
	if text := ok(t, r); !strings.HasPrefix(text, "1\n2\n") || !strings.HasSuffix(text, "\n2000\n") {
		t.Fatalf("text %q ... %q", text[:12], tail(text, 40))
	}
	if d := details(t, r); d["fullOutputPath"] != nil || d["truncation"] != nil {
		t.Fatalf("details %v", d)
	}
	r = f.run("bash", map[string]any{"command": "seq 1 2001"})
	text := ok(t, r)
	path, _ := details(t, r)["fullOutputPath"].(string)
	t.Cleanup(func() { os.Remove(path) })
	if !strings.HasPrefix(text, "2\n3\n") || !strings.HasSuffix(text, "2001\n\n[Showing lines 2-2001 of 2001. Full output: "+path+"]") {
		t.Fatalf("text %q ... %q", text[:10], tail(text, 80))
	}
}

func TestBashStreamsUpdates(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var updates []string
	x := Exec{Env: f.env, Update: func(s string) {
		mu.Lock()
		updates = append(updates, s)
		mu.Unlock()
	}}
	args := `{"command":"echo first; echo supersecretvalue; sleep 0.5; echo second"}`
	r := f.tools["bash"].Execute(context.Background(), Call{ID: "1", Name: "bash", Args: []byte(args)}, x)
	ok(t, r)
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Fatal("no partial output streamed")
	}
	if !strings.HasPrefix(updates[0], "first\n") {
		t.Fatalf("first update %q", updates[0])
	}
	// The updates carry the real output: the wire masks it (see
	// test/integration's TestNoSecretReachesTheClient).
	if !strings.Contains(strings.Join(updates, ""), "supersecretvalue") {
		t.Fatalf("updates %q miss the output", updates)
	}
}

// TestBashAbortKillsEverything aborts a command that has a background child
// and a foreground child; the result says aborted and no process survives.
func TestBashAbortKillsEverything(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	pids := filepath.Join(f.dir, "pids")
	go func() {
		for i := 0; i < 500; i++ {
			if data, err := os.ReadFile(pids); err == nil && strings.Count(string(data), "\n") >= 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	r := f.runCtx(ctx, "bash", map[string]any{"command": "echo started; sleep 30 & echo $! >> pids; echo $$ >> pids; sleep 30; echo never"})
	fails(t, r, "started\n\n\nCommand aborted")
	if d := details(t, r); d["cancelled"] != true {
		t.Fatalf("details %v", d)
	}
	for _, field := range strings.Fields(f.read("pids")) {
		pid, _ := strconv.Atoi(field)
		if processAlive(pid) {
			t.Errorf("process %d survived the abort", pid)
		}
	}
}

func TestBashAbortedBeforeStart(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fails(t, f.runCtx(ctx, "bash", map[string]any{"command": "touch ran"}), "Operation aborted")
	if _, err := os.Stat(filepath.Join(f.dir, "ran")); err == nil {
		t.Fatal("command ran")
	}
}

func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0] != "Z" && f[0] != "X"
}
