package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Timing of Local.Exec.
const (
	// pipeGrace is how long Exec waits for stdout/stderr to close after the
	// shell exits: a background grandchild that keeps the pipe open must not
	// hang the call.
	pipeGrace = 500 * time.Millisecond
	// DefaultKillGrace is the time between SIGTERM and SIGKILL on abort.
	DefaultKillGrace = 2 * time.Second
	// reapWait bounds the wait for the group to vanish after SIGKILL.
	reapWait  = time.Second
	pollEvery = 20 * time.Millisecond
)

// Exec runs req.Command with `bash -c` (sh when bash is missing) in its own
// process group. Stdout and stderr reach onOutput interleaved, in order. When
// ctx is done or req.Timeout passes, the whole group gets SIGTERM, then
// SIGKILL after the grace period, and Exec returns ExitCode -1 with an *Error
// of CodeAborted or CodeTimeout once the group is gone. A non-zero exit is
// not an error: it is in ExecResult.
func (l *Local) Exec(ctx context.Context, req ExecRequest, onOutput func([]byte)) (ExecResult, error) {
	dir := l.cwd
	if req.Cwd != "" {
		dir = l.Resolve(req.Cwd)
	}
	if err := ctx.Err(); err != nil {
		return ExecResult{ExitCode: -1}, wrap("exec", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = syscall.ENOTDIR
		}
		return ExecResult{ExitCode: -1}, &Error{Code: codeFor(err), Op: "exec", Path: dir,
			Err: fmt.Errorf("working directory does not exist: %w", err)}
	}

	cmd := exec.Command(l.shell, "-c", req.Command)
	sandboxed := SandboxMode("")
	if p := req.Sandbox; p != nil && p.Mode != SandboxOff && p.Mode != "" {
		if l.SandboxHelper == "" {
			return ExecResult{ExitCode: -1}, &Error{Code: CodeInvalid, Op: "exec", Err: errors.New("sandbox: no sandbox helper is configured")}
		}
		cmd = exec.Command(l.SandboxHelper, append(sandboxArgs(*p), l.shell, "-c", req.Command)...)
		sandboxed = p.Mode
	}
	cmd.Dir = dir
	cmd.Env = mergeEnv(os.Environ(), req.Env)
	w := &callbackWriter{fn: onOutput}
	cmd.Stdout, cmd.Stderr = w, w // one pipe: output stays in order
	cmd.WaitDelay = pipeGrace
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return ExecResult{ExitCode: -1}, wrap("exec", dir, err)
	}
	pgid := cmd.Process.Pid

	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	grace := l.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	exited := make(chan struct{})
	killed := make(chan Code, 1)
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		var reason Code
		select {
		case <-exited:
			return
		case <-ctx.Done():
			reason = codeFor(ctx.Err())
		case <-timeout:
			reason = CodeTimeout
		}
		killed <- reason
		killGroup(pgid, grace)
	}()

	waitErr := cmd.Wait()
	close(exited)
	<-killerDone

	select {
	case reason := <-killed:
		cause := error(context.Canceled)
		switch {
		case reason == CodeTimeout && ctx.Err() == nil:
			cause = fmt.Errorf("timed out after %s", req.Timeout)
		case ctx.Err() != nil:
			cause = ctx.Err()
		}
		return ExecResult{ExitCode: -1}, &Error{Code: reason, Op: "exec", Err: cause}
	default:
	}

	var exitErr *exec.ExitError
	switch {
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay), errors.As(waitErr, &exitErr):
		code := -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return ExecResult{ExitCode: code, Sandboxed: sandboxed}, nil
	default:
		return ExecResult{ExitCode: -1}, wrap("exec", dir, waitErr)
	}
}

// killGroup sends SIGTERM to the group, waits up to grace for it to exit,
// then sends SIGKILL and waits briefly for it to vanish.
func killGroup(pgid int, grace time.Duration) {
	if signalGroup(pgid, syscall.SIGTERM) != nil {
		return // already gone
	}
	if waitGroupGone(pgid, grace) {
		return
	}
	_ = signalGroup(pgid, syscall.SIGKILL)
	waitGroupGone(pgid, reapWait)
}

func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// callbackWriter hands every chunk to fn; os/exec calls Write from one
// goroutine at a time because stdout and stderr share it.
type callbackWriter struct {
	mu sync.Mutex
	fn func([]byte)
}

func (w *callbackWriter) Write(p []byte) (int, error) {
	if w.fn != nil {
		w.mu.Lock()
		w.fn(p)
		w.mu.Unlock()
	}
	return len(p), nil
}

// mergeEnv overrides base ("NAME=value") with extra, in a stable order.
func mergeEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; !over {
			out = append(out, kv)
		}
	}
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, name+"="+extra[name])
	}
	return out
}
