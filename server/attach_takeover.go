package server

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// slogWarn is the level of the owner-change notices.
const slogWarn = slog.LevelWarn

// takeoverWait bounds the search for a new owner after the old one left.
const takeoverWait = 15 * time.Second

// successorHead start is how long a process that is not the named
// successor of a hand-over waits for it before racing for the lock itself.
const successorHeadStart = 3 * time.Second

// lost runs when the connection to the owner ends without this side
// closing it: the owner exited (hand-over) or died (takeover). This process
// takes the lock, or attaches to whoever did.
func (l *link) lost(u *upstream) {
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
	h := l.a.harness(c)
	if h == nil {
		l.fail(fmt.Errorf("attach: no harness to take the session over"))
		return
	}
	ctx := c.Context()
	start := time.Now()
	for ctx.Err() == nil {
		if successor || time.Since(start) > successorHeadStart {
			_, err := h.OpenSession(ctx, l.path)
			if err == nil {
				l.becomeOwner(h, hand, reason, interrupted, u.ownerPID)
				return
			}
			if lockedBy(err) == nil {
				l.fail(fmt.Errorf("attach: taking the session over: %w", err))
				return
			}
		}
		if nu, err := dialOwner(ctx, l); err == nil {
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
			_ = c.Notify("session/owner", ownerNotice(nu.ownerPID, reason, interrupted))
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

// becomeOwner makes this process the session's owner: c is fed from the
// local harness, which now holds the lock and serves the socket, and the
// queue handed over is delivered.
func (l *link) becomeOwner(h *harness.Harness, hand *handoverParams, reason string, interrupted bool, was int) {
	c, a := l.c, l.a
	a.mu.Lock()
	at := a.conns[c]
	a.mu.Unlock()
	if at != nil {
		at.cancel()
	}
	l.mu.Lock()
	l.owned = true
	l.mu.Unlock()
	a.att.mu.Lock()
	delete(a.att.links, c)
	a.att.mu.Unlock()
	l.mu.Lock()
	a.setDisplayAfter(c, displayAt{stream: l.stream, version: l.version})
	l.mu.Unlock()
	if err := a.connect(c.Context(), c, l.p, h, false); err != nil {
		a.logWarn("taking the session over", err)
	}
	_ = c.Notify("session/owner", ownerNotice(os.Getpid(), reason, interrupted))
	if interrupted {
		// A notice item in every client's display (and window/logMessage),
		// kept for the clients that attach later.
		h.Notice(interruptedNotice(was, reason))
	}
	if hand == nil {
		return
	}
	// The queue: the first message starts a run, the others follow it.
	for _, text := range append(append([]string{}, hand.Steering...), hand.FollowUp...) {
		if _, err := h.Prompt(context.WithoutCancel(c.Context()), text, harness.PromptOptions{StreamingBehavior: harness.DeliveryFollowUp}); err != nil {
			a.logWarn("delivering a queued message after the hand-over", err)
		}
	}
}

// fail ends the link: its requests answer err from now on.
func (l *link) fail(err error) {
	l.mu.Lock()
	l.failed = &rpc.Error{Code: rpc.CodeInternalError, Message: err.Error()}
	l.mu.Unlock()
	l.c.Log(slog.LevelError, err.Error())
}

// interruptedNotice is the display notice of a run the owner's leaving
// interrupted. A hand-over aborted the run, so its partial answer is in
// the session as an interrupted message; a killed owner saved nothing of
// the answer it was streaming.
func interruptedNotice(pid int, reason string) string {
	if reason == protocol.OwnerHandover {
		return fmt.Sprintf("The owner of this session (pid %d) exited mid-run; the run was interrupted. Its answer up to then is kept.", pid)
	}
	return fmt.Sprintf("The owner of this session (pid %d) exited mid-run; the run was interrupted. What it had written is kept; the answer it was streaming was not saved.", pid)
}
