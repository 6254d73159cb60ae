//go:build linux

package env

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// groupAlive reports whether a live (non-zombie) process is in the group.
// Signal 0 alone is not enough: an orphaned zombie still counts for kill(2)
// when the machine's init does not reap promptly.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp ...
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			return true
		}
	}
	return false
}

// setJobProcess makes the command the leader of a new process group that
// gets SIGTERM when the thread that started it dies (PR_SET_PDEATHSIG):
// Jobs starts every job from one locked thread that lives as long as the
// Jobs, so that is when pi-lsp dies or the Jobs close.
func setJobProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
