//go:build unix && !linux

package env

import "syscall"

// groupAlive reports whether any process is in the group.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
