package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// SocketDir is the directory of the attach sockets of live sessions:
// $XDG_RUNTIME_DIR/pi-lsp when XDG_RUNTIME_DIR is set, else a per-user
// directory under the temporary directory. It is created 0700.
func SocketDir() (string, error) {
	dir := ""
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		dir = filepath.Join(rt, "pi-lsp")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("pi-lsp-%d", os.Getuid()), "run")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("session: socket directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("session: socket directory: %w", err)
	}
	return dir, nil
}

// SocketPath is the attach socket of the session file at path. It is named
// by the file's device and inode, the key of its write lock, so every path
// to the file (a symbolic or a hard link) finds the same socket, and the
// name stays short of the 108-byte limit of a socket path.
func SocketPath(path string) (string, error) {
	key, err := inodeKey(path)
	if err != nil {
		return "", fmt.Errorf("session: socket of %s: %w", path, err)
	}
	dir, err := SocketDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, key+".sock"), nil
}
