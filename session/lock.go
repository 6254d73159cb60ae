package session

import (
	"errors"
	"fmt"
	"os"
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

// lockPath is the lock file beside a session file.
func lockPath(path string) string { return path + ".lock" }

// acquireLock takes the writer lock of the session at path without
// waiting, and records this process's pid in the lock file.
func acquireLock(path string) (*flock.Flock, error) {
	lp := lockPath(path)
	fl := flock.New(lp, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("session: lock %s: %w", lp, err)
	}
	if !ok {
		return nil, &LockedError{Path: path, PID: readLockPID(lp)}
	}
	// flock does not expose its descriptor; a second one writes the pid
	// (closing it does not release a flock(2) lock).
	if err := os.WriteFile(lp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("session: lock %s: %w", lp, err)
	}
	return fl, nil
}

// readLockPID reads the owner's pid, waiting briefly for an owner that has
// just taken the lock and not yet written it.
func readLockPID(lp string) int {
	for range 20 {
		b, err := os.ReadFile(lp)
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

// releaseLock clears the pid and releases the lock. The lock file stays:
// removing it would let two writers lock different inodes of one path.
func releaseLock(fl *flock.Flock) error {
	if fl == nil {
		return nil
	}
	_ = os.Truncate(fl.Path(), 0) // best effort; we still hold the lock here
	if err := fl.Unlock(); err != nil {
		return fmt.Errorf("session: unlock %s: %w", fl.Path(), err)
	}
	return nil
}
