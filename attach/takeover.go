package attach

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/session"
)

// takeoverWait bounds the search for a new owner after the old one left.
const takeoverWait = 15 * time.Second

// successorHeadStart is how long a process that is not the named
// successor of a hand-over waits for it before racing for the lock itself.
const successorHeadStart = 3 * time.Second

// lost runs when the connection to the owner ends without this side
// closing it: the owner exited (hand-over) or died (takeover). This process
// takes the lock, or attaches to whoever did.
func (l *Link) lost(u *upstream) {
	l.mu.Lock()
	if l.up != u || l.closed {
		l.mu.Unlock()
		return
	}
	l.up = nil
	sw := make(chan struct{})
	l.switching = sw
	l.mu.Unlock()
	defer close(sw)

	u.mu.Lock()
	hand, interrupted := u.handover, u.running
	u.mu.Unlock()
	reason := protocol.OwnerTakeover
	successor := true
	if hand != nil {
		reason = protocol.OwnerHandover
		successor = hand.Successor == os.Getpid()
		interrupted = interrupted || hand.Interrupted
	}
	c := l.c
	ctx := c.Context()
	start := time.Now()
	for ctx.Err() == nil {
		if successor || time.Since(start) > successorHeadStart {
			err := l.host.OpenSession(ctx, c, l.path)
			if err == nil {
				l.becomeOwner(TakeOver{Reason: reason, Interrupted: interrupted, Was: u.w.ownerPID, Handover: hand})
				return
			}
			var locked *session.LockedError
			if !errors.As(err, &locked) {
				l.fail(fmt.Errorf("attach: taking the session over: %w", err))
				return
			}
		}
		if nu, err := l.dial(ctx); err == nil {
			l.mu.Lock()
			closed := l.closed
			if !closed {
				l.up = nu
			}
			l.mu.Unlock()
			if closed {
				nu.close()
				return
			}
			nu.start()
			_ = c.Notify("session/owner", protocol.OwnerParams{PID: nu.w.ownerPID, Reason: reason, Interrupted: interrupted})
			return
		}
		if time.Since(start) > takeoverWait {
			l.fail(fmt.Errorf("attach: the owner of %s left and no process took the session over", l.path))
			return
		}
		// Jitter: the attached processes race for the lock together.
		if sleepCtx(ctx, time.Duration(20+rand.IntN(60))*time.Millisecond) != nil {
			return
		}
	}
}

// becomeOwner makes this process the session's owner: the host feeds the
// editor from the local harness, which now holds the lock and serves the
// socket, and delivers the queue handed over.
func (l *Link) becomeOwner(t TakeOver) {
	l.mu.Lock()
	l.owned = true
	t.Display = Display{Stream: l.stream, Version: l.version}
	t.Init = l.p
	l.mu.Unlock()
	l.host.TakeOver(l.c, t)
}

// InterruptedNotice is the display notice of a run the owner's leaving
// interrupted. A hand-over aborted the run, so its partial answer is in
// the session as an interrupted message; a killed owner saved nothing of
// the answer it was streaming.
func InterruptedNotice(pid int, reason string) string {
	if reason == protocol.OwnerHandover {
		return fmt.Sprintf("The owner of this session (pid %d) exited mid-run; the run was interrupted. Its answer up to then is kept.", pid)
	}
	return fmt.Sprintf("The owner of this session (pid %d) exited mid-run; the run was interrupted. What it had written is kept; the answer it was streaming was not saved.", pid)
}
