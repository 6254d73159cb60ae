//go:build !unix

package harness

import "os/exec"

// ownGroup: without process groups, cancelling kills the shell only.
func ownGroup(cmd *exec.Cmd) {}
