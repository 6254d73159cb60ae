//go:build unix

package rpc

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether process pid exists (kill(pid, 0)).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func isParent(pid int) bool { return os.Getppid() == pid }
