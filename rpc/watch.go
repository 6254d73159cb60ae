package rpc

import (
	"context"
	"time"
)

// parentPollInterval is how often WatchParent checks the parent process.
const parentPollInterval = time.Second

// WatchParent blocks until ctx ends or process pid is gone, polling once a
// second, and calls onGone in the latter case. pid is initialize's
// processId; 0 (unknown) or the current process watches nothing. Run it in
// its own goroutine and make onGone end Serve (cancel its ctx): the process
// then exits cleanly, killing its tools first.
func WatchParent(ctx context.Context, pid int, onGone func()) {
	watchParent(ctx, pid, parentPollInterval, onGone)
}

func watchParent(ctx context.Context, pid int, every time.Duration, onGone func()) {
	if pid <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	wasParent := isParent(pid)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A dead parent may linger as a zombie (kill succeeds) until it is
		// reaped, but we are re-parented at once: check both.
		if !alive(pid) || (wasParent && !isParent(pid)) {
			onGone()
			return
		}
	}
}
