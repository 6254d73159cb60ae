//go:build unix

package session

import (
	"fmt"
	"os"
	"syscall"
)

// inodeKey names the file at path by its device and inode.
func inodeKey(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("no device and inode for %s", path)
	}
	return fmt.Sprintf("%d-%d", uint64(st.Dev), uint64(st.Ino)), nil
}
