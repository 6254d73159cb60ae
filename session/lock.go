package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// LockedError is returned when another writer holds a session's lock.
type LockedError struct {
	Path string // the session file
	PID  int    // the owner's process id (0 if it could not be read)
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("session %s is locked by pid %d", e.Path, e.PID)
}

// fileLock is the writer lock of one session file. The lock is a flock(2)
// on the session file itself, so it is keyed by the file's device and
// inode: a symbolic link or a hard link to a locked session finds the same
// lock, whatever path it was opened by. The owner's pid is recorded in a
// small file named by device and inode in a per-user lock directory (only
// for the error a second opener gets; the lock does not depend on it).
type fileLock struct {
	fl      *flock.Flock
	pidPath string
}

// lockDir is where the owners' pid files are kept.
func lockDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("pi-lsp-%d", os.Getuid()), "locks")
}

// acquireLock takes the writer lock of the session at path without
// waiting, and records this process's pid.
func acquireLock(path string) (*fileLock, error) {
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("session: lock %s: %w", path, err)
	}
	key, kerr := inodeKey(path)
	pidPath := ""
	if kerr == nil {
		pidPath = filepath.Join(lockDir(), key+".pid")
	}
	if !ok {
		return nil, &LockedError{Path: path, PID: readLockPID(pidPath)}
	}
	if pidPath != "" {
		if err := os.MkdirAll(lockDir(), 0o700); err == nil {
			_ = os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600) // best effort
		}
	}
	return &fileLock{fl: fl, pidPath: pidPath}, nil
}

// readLockPID reads the owner's pid, waiting briefly for an owner that has
// just taken the lock and not yet written it.
func readLockPID(pidPath string) int {
	if pidPath == "" {
		return 0
	}
	for range 20 {
		b, err := os.ReadFile(pidPath)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return 0
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

// releaseLock removes the pid file and releases the lock.
func releaseLock(l *fileLock) error {
	if l == nil {
		return nil
	}
	if l.pidPath != "" {
		_ = os.Remove(l.pidPath) // best effort; we still hold the lock here
	}
	if err := l.fl.Close(); err != nil {
		return fmt.Errorf("session: unlock %s: %w", l.fl.Path(), err)
	}
	return nil
}
