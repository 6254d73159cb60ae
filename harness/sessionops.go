package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// sessionHost owns the harness's current session and every operation that
// opens, replaces, moves or closes it: new, open (a switch is an open),
// continue-recent, close, fork, clone, navigate (navigate.go), name and
// label. They share one swap: close the old session (its jobs and spill
// files with it), make the new one current, restore its recorded state or
// record the harness's into it, reset memory and checkpoints, and tell the
// event bus (and so every display) in order: session_change, notices,
// mode, model, thinking, goal, tasks, usage, memory. It also records and
// restores the state pi-lsp keeps in a session besides its messages (mode,
// yolo, permissions, tasks: sessionstate.go). Harness keeps thin
// exported methods that delegate here; the session state the harness
// reads elsewhere goes through currentSession.
//
// Lock discipline:
//   - Replacing the current session needs the idle harness. new, open,
//     continue-recent, close, fork and clone first claim it from the run
//     owner (runner.claim(PhaseIdle)); while a run or another operation
//     holds it they fail at once with *BusyError (-32001 on the wire) and
//     change nothing. Navigate claims PhaseIdle, or PhaseBranchSummary
//     when it summarizes the branch it leaves, and is refused the same
//     way. A claim is granted only when nobody holds the harness, so two
//     session operations never overlap and no run starts during one.
//   - ensure (a prompt, a user command, a goal or memory with no session
//     yet) does not claim: it runs before the run it is for starts, and
//     createMu makes two callers at once create one session.
//   - Name and label do not claim either: they append one entry to the
//     current session (whose writer serializes appends), so they may run
//     while a run is going.
//   - cur is guarded by the harness's mu, not by a lock of its own: the
//     swap replaces it together with the session-scoped state the harness
//     keeps (tasks, grants, usage, compaction count) in one critical
//     section, so no reader sees the new session with the old one's
//     totals. mu is never held across I/O or an emit: the swap reads and
//     writes session files and emits events after releasing it.
//   - A failed new, open, fork or clone leaves the current session
//     current and intact: the new session is created (or opened and
//     locked) before anything is swapped, and a failure returns before
//     the swap.
type sessionHost struct {
	h *Harness
	// createMu serializes ensure.
	createMu sync.Mutex
	// cur is the current session, nil when none is open; guarded by h.mu.
	cur *session.Session
}

// current returns the current session, or nil.
func (o *sessionHost) current() *session.Session {
	o.h.mu.Lock()
	defer o.h.mu.Unlock()
	return o.cur
}

func (o *sessionHost) root() string {
	if root := o.h.cfg.SessionsRoot; root != "" {
		return root
	}
	return session.DefaultRoot()
}

// claimed runs op holding the idle harness, or fails with *BusyError.
func (o *sessionHost) claimed(op func() error) error {
	if err := o.h.owner.claim(PhaseIdle); err != nil {
		return err
	}
	defer o.h.owner.release()
	return op()
}

// replace claims the idle harness, makes the new session with mk (from the
// current one, src, which mk may need) and swaps to it: restore says
// whether its recorded state is brought back, ref whether it shares the
// checkpoints of the session it was made from (fork, clone). When mk
// fails nothing was swapped.
func (o *sessionHost) replace(ctx context.Context, restore, ref bool, mk func(src *session.Session) (*session.Session, error)) (info SessionInfo, err error) {
	err = o.claimed(func() error {
		// The end checkpoint of the last run is recorded in the session it
		// belongs to before that session is left or copied.
		if err := o.h.settleCheckpoint(ctx); err != nil {
			return err
		}
		s, err := mk(o.current())
		if err != nil {
			return err
		}
		o.swap(ctx, s, restore)
		if ref {
			o.h.refCheckpoints(ctx)
		}
		info = o.h.SessionInfo()
		return nil
	})
	return info, err
}

// create starts a new session in cwd ("" = the harness cwd).
func (o *sessionHost) create(ctx context.Context, cwd string) (SessionInfo, error) {
	return o.replace(ctx, false, false, func(*session.Session) (*session.Session, error) {
		if cwd == "" {
			cwd = o.h.Cwd()
		}
		s, err := session.Create(ctx, o.root(), cwd, session.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("new session: %w", err)
		}
		return s, nil
	})
}

// open opens (and locks) an existing session file and restores the harness
// state recorded in it.
func (o *sessionHost) open(ctx context.Context, path string) (SessionInfo, error) {
	return o.replace(ctx, true, false, func(*session.Session) (*session.Session, error) {
		s, err := session.Open(ctx, path, session.OpenOptions{})
		if err != nil {
			return nil, fmt.Errorf("open session: %w", err)
		}
		return s, nil
	})
}

// close closes the current session, releasing its lock, and leaves the
// harness idle with no session.
func (o *sessionHost) close() error {
	return o.claimed(func() error {
		h := o.h
		_ = h.settleCheckpoint(context.Background()) // recorded before the session closes
		h.mu.Lock()
		s := o.cur
		o.cur = nil
		h.taskList = nil
		h.perms.Grants = Grants{}
		h.mu.Unlock()
		h.closeJobs()
		if s == nil {
			return nil
		}
		h.removeSpills()
		if err := s.Close(); err != nil {
			return fmt.Errorf("close session: %w", err)
		}
		return nil
	})
}

// continueRecent opens the newest session of the cwd, or starts one.
func (o *sessionHost) continueRecent(ctx context.Context) (SessionInfo, error) {
	list, err := session.List(ctx, o.root(), o.h.Cwd())
	if err == nil && len(list) > 0 {
		info, err := o.open(ctx, list[0].Path)
		var locked *session.LockedError
		if !errors.As(err, &locked) {
			return info, err
		}
		// The newest session has a live writer: start a new one instead of
		// failing, and say so.
		o.h.sessionNotice(fmt.Sprintf("The most recent session %s is open in another pi-lsp process (pid %d); a new session was started instead.", list[0].Path, locked.PID))
	}
	return o.create(ctx, "")
}

// ensure returns the current session, creating one in the cwd when none
// is open.
func (o *sessionHost) ensure(ctx context.Context) (*session.Session, error) {
	// Two prompts at once with no session must not create two.
	o.createMu.Lock()
	defer o.createMu.Unlock()
	if s := o.current(); s != nil {
		return s, nil
	}
	s, err := session.Create(ctx, o.root(), o.h.Cwd(), session.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	o.swap(ctx, s, false)
	return s, nil
}

// fork starts a new session holding the path to entryID (before it, or at
// it) and makes it current. editorText is the text of the user message a
// "before" fork left out.
func (o *sessionHost) fork(ctx context.Context, entryID string, at bool) (SessionInfo, string, error) {
	editorText := ""
	info, err := o.replace(ctx, true, true, func(src *session.Session) (*session.Session, error) {
		if src == nil {
			return nil, ErrNoSession
		}
		e, err := src.Entry(entryID)
		if err != nil {
			return nil, fmt.Errorf("fork: %w", err)
		}
		if !at && e.Message != nil && e.Message.Role == llm.RoleUser {
			editorText = e.Message.Text()
		}
		s, err := session.Fork(ctx, src, o.root(), entryID, at)
		if err != nil {
			return nil, fmt.Errorf("fork: %w", err)
		}
		return s, nil
	})
	if err != nil {
		return SessionInfo{}, "", err
	}
	return info, editorText, nil
}

// clone copies the current branch into a new session and makes it current.
func (o *sessionHost) clone(ctx context.Context) (SessionInfo, error) {
	return o.replace(ctx, true, true, func(src *session.Session) (*session.Session, error) {
		if src == nil {
			return nil, ErrNoSession
		}
		s, err := session.Clone(ctx, src, o.root())
		if err != nil {
			return nil, fmt.Errorf("clone: %w", err)
		}
		return s, nil
	})
}

// setName names the session (creating one when none is open).
func (o *sessionHost) setName(ctx context.Context, name string) error {
	s, err := o.ensure(ctx)
	if err != nil {
		return err
	}
	if err := s.SetName(ctx, name); err != nil {
		return err
	}
	o.h.emit(Event{Type: EvSessionInfo, Name: name})
	return nil
}

// label sets or clears the label of an entry.
func (o *sessionHost) label(ctx context.Context, entryID, label string) error {
	s := o.current()
	if s == nil {
		return ErrNoSession
	}
	if _, err := s.Entry(entryID); err != nil {
		return fmt.Errorf("label: %w", err)
	}
	return s.SetLabel(ctx, entryID, label)
}

// swap makes s current, closing the old one, and restores its recorded
// state (restore) or records the harness's into it, then tells the event
// bus. The caller holds the idle harness, or createMu with no session open.
func (o *sessionHost) swap(ctx context.Context, s *session.Session, restore bool) {
	h := o.h
	h.mu.Lock()
	old := o.cur
	o.cur = s
	h.taskList = nil
	h.compactions = 0
	h.lastUsage = llm.Usage{}
	h.cumulative = llm.Usage{}
	h.perms.Grants = Grants{} // session grants belong to the session they were given in
	h.mu.Unlock()
	if old != s {
		h.closeJobs() // jobs end with their session
	}
	if old != nil && old != s {
		h.removeSpills()
		if err := old.Close(); err != nil {
			h.log.Warn("closing session", "err", err)
		}
	}
	if restore {
		o.restoreState(ctx)
	} else {
		o.recordInitialState(ctx)
	}
	h.resetMemory(ctx)
	if !restore {
		h.recordMemoryDefault(ctx)
	}
	h.openCheckpoints(ctx)
	h.emit(h.sessionEvent(ctx))
	h.flushSessionNotices(s)
	// What restoreState brought back (or kept) from the session.
	h.emitMode()
	if m, ok := h.currentRef(); ok {
		h.emit(Event{Type: EvModel, Model: m})
	}
	h.emit(Event{Type: EvThinking, Thinking: h.Thinking()})
	if restore {
		h.restoreGoal()
	} else {
		h.owner.resetGoal(nil)
	}
	h.emitTasks()
	h.emit(Event{Type: EvUsage, Tokens: h.tokensPtr()})
	h.announceMemory()
}
