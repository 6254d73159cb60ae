//go:build unix && !linux

package env

import (
	"os/exec"
	"syscall"
)

// groupAlive reports whether any process is in the group.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// setJobProcess makes the command the leader of a new process group. There
// is no parent-death signal here: the job supervisor's lifeline pipe alone
// ends the job when pi-lsp dies.
func setJobProcess(cmd *exec.Cmd) { setProcessGroup(cmd) }
