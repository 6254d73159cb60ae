//go:build !unix

package session

import "errors"

// inodeKey is not available here: the pid of a lock's owner is not recorded.
func inodeKey(string) (string, error) { return "", errors.New("no inode numbers on this platform") }
