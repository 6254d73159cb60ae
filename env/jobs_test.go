package env

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func newTestJobs(t *testing.T, helper bool) (*Local, *Jobs, *jobEvents) {
	t.Helper()
	l := NewLocal(t.TempDir())
	if helper {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		l.SandboxHelper = exe // the test binary plays pi-lsp (TestMain)
	}
	ev := &jobEvents{}
	j := NewJobs(JobsOptions{Dir: t.TempDir(), OnEvent: ev.add, KillGrace: 500 * time.Millisecond})
	t.Cleanup(j.Close)
	return l, j, ev
}

type jobEvents struct {
	mu     sync.Mutex
	kinds  []JobEventKind
	output strings.Builder
}

func (e *jobEvents) add(ev JobEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.kinds = append(e.kinds, ev.Kind)
	e.output.Write(ev.Output)
}

func waitEnd(t *testing.T, jb *Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := jb.WaitEnd(ctx); err != nil {
		t.Fatalf("%s did not end: %v", jb.ID(), err)
	}
}

// A job returns at once, streams its output, and reports its exit code;
// ReadNew reads only what is new.
func TestJobsStartReadExit(t *testing.T) {
	for _, helper := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "supervised"}[helper], func(t *testing.T) {
			l, j, ev := newTestJobs(t, helper)
			fifo := filepath.Join(t.TempDir(), "go")
			info, err := j.Start(context.Background(), l, ExecRequest{Command: "echo one; while [ ! -e " + fifo + " ]; do sleep 0.05; done; echo two; exit 3"})
			if err != nil {
				t.Fatal(err)
			}
			if info.ID != "job-1" || info.Status != JobRunning || info.Pid <= 0 {
				t.Fatalf("%+v", info)
			}
			jb, err := j.Get("job-1")
			if err != nil {
				t.Fatal(err)
			}
			for !strings.Contains(jb.Tail(0), "one") {
				jb.WaitChange(context.Background())
			}
			if got := jb.ReadNew(0); got != "one\n" {
				t.Fatalf("first read %q", got)
			}
			if jb.Info().Status != JobRunning {
				t.Fatal("ended before it was told to")
			}
			if err := os.WriteFile(fifo, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			waitEnd(t, jb)
			got := jb.Info()
			if got.Status != JobExited || got.ExitCode == nil || *got.ExitCode != 3 || got.EndedAt.IsZero() {
				t.Fatalf("%+v", got)
			}
			if s := jb.ReadNew(0); s != "two\n" {
				t.Fatalf("second read %q", s)
			}
			data, err := os.ReadFile(got.OutputPath)
			if err != nil || string(data) != "one\ntwo\n" {
				t.Fatalf("file %q %v", data, err)
			}
			ev.mu.Lock()
			kinds, out := append([]JobEventKind(nil), ev.kinds...), ev.output.String()
			ev.mu.Unlock()
			if kinds[0] != JobStarted || kinds[len(kinds)-1] != JobEnded || out != "one\ntwo\n" {
				t.Fatalf("events %v %q", kinds, out)
			}
			if info2, _ := j.Start(context.Background(), l, ExecRequest{Command: "true"}); info2.ID != "job-2" {
				t.Fatalf("second id %q", info2.ID)
			}
		})
	}
}

// Kill ends the job's whole process group, grandchildren included.
func TestJobsKillGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, helper := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "supervised"}[helper], func(t *testing.T) {
			l, j, _ := newTestJobs(t, helper)
			info, err := j.Start(context.Background(), l, ExecRequest{Command: "sleep 60 & sleep 60; wait"})
			if err != nil {
				t.Fatal(err)
			}
			if !groupAlive(info.Pid) {
				t.Fatal("group not alive")
			}
			got, err := j.Kill(context.Background(), info.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != JobKilled || got.ExitCode == nil {
				t.Fatalf("%+v", got)
			}
			if groupAlive(info.Pid) {
				t.Fatal("a process of the group survived the kill")
			}
		})
	}
}

// Close kills every running job and removes their output files.
func TestJobsCloseKillsAll(t *testing.T) {
	l, j, _ := newTestJobs(t, true)
	var infos []JobInfo
	for i := 0; i < 2; i++ {
		info, err := j.Start(context.Background(), l, ExecRequest{Command: "sleep 60"})
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	j.Close()
	for _, info := range infos {
		if groupAlive(info.Pid) {
			t.Fatalf("%s survived Close", info.ID)
		}
		if _, err := os.Stat(info.OutputPath); !os.IsNotExist(err) {
			t.Fatalf("output file kept: %v", err)
		}
	}
	if _, err := j.Start(context.Background(), l, ExecRequest{Command: "true"}); err != ErrJobsClosed {
		t.Fatalf("start after close: %v", err)
	}
}

// An unknown id is an error that names the known jobs.
func TestJobsUnknown(t *testing.T) {
	l, j, _ := newTestJobs(t, false)
	if _, err := j.Get("job-9"); err == nil || !strings.Contains(err.Error(), "no jobs") {
		t.Fatalf("%v", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := j.Start(context.Background(), l, ExecRequest{Command: "true"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := j.Get("job-9")
	if err == nil || !strings.Contains(err.Error(), "job-1, job-2") || CodeOf(err) != CodeNotFound {
		t.Fatalf("%v", err)
	}
}

// A job that prints 100 MB keeps its ring bounded; the file has it all.
func TestJobsLargeOutputBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	l, j, _ := newTestJobs(t, false)
	const total = 100 << 20
	info, err := j.Start(context.Background(), l, ExecRequest{Command: "head -c 104857600 /dev/zero | tr '\\0' 'x' | fold -w 99"})
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := j.Get(info.ID)
	waitEnd(t, jb)
	jb.mu.Lock()
	ringLen, ringCap, lines := len(jb.ring.buf), cap(jb.ring.buf), jb.ring.lines
	jb.mu.Unlock()
	if ringLen > JobRingBytes || ringCap > 4*JobRingBytes || lines > JobRingLines {
		t.Fatalf("ring holds %d bytes (cap %d), %d lines", ringLen, ringCap, lines)
	}
	got := jb.Info()
	fi, err := os.Stat(got.OutputPath)
	if err != nil || fi.Size() != got.OutputSize || got.OutputSize < total {
		t.Fatalf("file %v %v, size %d", fi, err, got.OutputSize)
	}
	s := jb.ReadNew(5)
	if !strings.HasPrefix(s, "[") || !strings.Contains(s, got.OutputPath) || strings.Count(s, "\n") != 5 {
		t.Fatalf("tail read %q", s)
	}
}

func TestJobRing(t *testing.T) {
	r := newJobRing(3, 10)
	r.write([]byte("a\nb\n"))
	r.write([]byte("c\nd\n"))
	if string(r.buf) != "b\nc\nd\n" || r.start != 2 || r.lines != 3 {
		t.Fatalf("%q %d %d", r.buf, r.start, r.lines)
	}
	r.write([]byte("0123456789abc"))
	if string(r.buf) != "3456789abc" || r.end() != 21 || r.lines != 0 {
		t.Fatalf("%q %d %d", r.buf, r.end(), r.lines)
	}
	data, dropped, next := r.read(5)
	if string(data) != "3456789abc" || dropped != 6 || next != 21 {
		t.Fatalf("%q %d %d", data, dropped, next)
	}
	if data, _, _ := r.read(19); string(data) != "bc" {
		t.Fatalf("%q", data)
	}
	if got := string(newRingWith("x\ny\nz\n").tailLines(2)); got != "y\nz\n" {
		t.Fatalf("tail %q", got)
	}
}

func newRingWith(s string) *jobRing {
	r := newJobRing(100, 100)
	r.write([]byte(s))
	return r
}
