//go:build unix

package env

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// JobRunCommand is the hidden subcommand of pi-lsp that supervises a
// background job: "pi-lsp __job-run -- argv…". It runs argv in its own
// process group and ends that whole group when pi-lsp dies — its lifeline
// pipe (fd 3) reaches end of file, or its parent-death signal arrives — so
// no grandchild of a job outlives pi-lsp, even after a kill -9.
const JobRunCommand = "__job-run"

// lifelineFd is the supervisor's read end of the lifeline pipe.
const lifelineFd = 3

// Spawn starts req.Command in the background: `bash -c` in its own process
// group, under req.Sandbox like Exec, with output to out. With a
// SandboxHelper (the pi-lsp binary) configured, the command runs under the
// job supervisor (JobRunCommand); without one, it runs directly and only its
// leader gets the parent-death signal.
func (l *Local) Spawn(req ExecRequest, out func([]byte)) (Spawned, error) {
	dir := l.cwd
	if req.Cwd != "" {
		dir = l.Resolve(req.Cwd)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = syscall.ENOTDIR
		}
		return Spawned{}, &Error{Code: codeFor(err), Op: "spawn", Path: dir, Err: fmt.Errorf("working directory does not exist: %w", err)}
	}
	argv := []string{l.shell, "-c", req.Command}
	sandboxed := SandboxMode("")
	if p := req.Sandbox; p != nil && p.Mode != SandboxOff && p.Mode != "" {
		if l.SandboxHelper == "" {
			return Spawned{}, &Error{Code: CodeInvalid, Op: "spawn", Err: errors.New("sandbox: no sandbox helper is configured")}
		}
		argv = append(append([]string{l.SandboxHelper}, sandboxArgs(*p)...), argv...)
		sandboxed = p.Mode
	}
	var lifeline, keep *os.File
	if l.SandboxHelper != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return Spawned{}, wrap("spawn", dir, err)
		}
		lifeline, keep = r, w
		argv = append([]string{l.SandboxHelper, JobRunCommand, "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = mergeEnv(os.Environ(), req.Env)
	w := &callbackWriter{fn: out}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = pipeGrace
	if lifeline != nil {
		cmd.ExtraFiles = []*os.File{lifeline} // fd 3
	}
	setJobProcess(cmd)
	err := cmd.Start()
	if lifeline != nil {
		lifeline.Close()
	}
	if err != nil {
		if keep != nil {
			keep.Close()
		}
		return Spawned{}, wrap("spawn", dir, err)
	}
	wait := func() (int, error) {
		err := cmd.Wait()
		if keep != nil {
			keep.Close() // the supervisor has exited: the lifeline is done
		}
		var exitErr *exec.ExitError
		if err != nil && !errors.Is(err, exec.ErrWaitDelay) && !errors.As(err, &exitErr) {
			return -1, fmt.Errorf("wait: %w", err)
		}
		return exitCodeOf(cmd.ProcessState), nil
	}
	return Spawned{Pid: cmd.Process.Pid, Wait: wait, Sandboxed: sandboxed}, nil
}

// exitCodeOf is a process's exit code, 128+n when signal n ended it.
func exitCodeOf(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// JobRun is the body of the supervisor subcommand (JobRunCommand). It
// starts argv (after "--") in its own process group (which it leads) and
// returns argv's exit code when it exits. When pi-lsp goes away — the
// lifeline on fd 3 closes, or SIGTERM/SIGHUP/SIGINT arrives (pi-lsp's kill,
// or the parent-death signal) — it sends SIGTERM to the whole group, waits
// up to DefaultKillGrace for argv, then SIGKILLs the group, itself included.
func JobRun(args []string, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintf(stderr, "pi-lsp %s: usage: %s -- command [args...]\n", JobRunCommand, JobRunCommand)
		return 2
	}
	argv := args[1:]
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	parentGone := make(chan struct{})
	var st syscall.Stat_t
	if syscall.Fstat(lifelineFd, &st) == nil {
		syscall.CloseOnExec(lifelineFd) // the command must not hold it open
		lifeline := os.NewFile(lifelineFd, "lifeline")
		go func() {
			_, _ = io.Copy(io.Discard, lifeline)
			close(parentGone)
		}()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "pi-lsp %s: %v\n", JobRunCommand, err)
		return 127
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
		return exitCodeOf(cmd.ProcessState)
	case <-sigs:
	case <-parentGone:
	}
	pgid := syscall.Getpgrp()
	_ = syscall.Kill(-pgid, syscall.SIGTERM) // this process ignores it (signal.Notify)
	select {
	case <-exited:
	case <-time.After(DefaultKillGrace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return 137
}

// Spawn forwards to the wrapped Env when it can start background commands.
func (e *Editor) Spawn(req ExecRequest, out func([]byte)) (Spawned, error) {
	sp, ok := e.Env.(Spawner)
	if !ok {
		return Spawned{}, &Error{Code: CodeInvalid, Op: "spawn", Err: errors.New("this environment cannot run background commands")}
	}
	return sp.Spawn(req, out)
}
