//go:build unix

package harness

import (
	"os/exec"
	"syscall"
)

// ownGroup runs a hook in its own process group and makes cancelling it
// kill the whole group (a hook's children too).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
