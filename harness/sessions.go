package harness

import (
	"context"
	"errors"

	"github.com/pi-lsp/pi-lsp/compaction"

	"encoding/json"
	"fmt"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Custom entry types pi-lsp stores its own state under. A pi-lsp session
// stays a valid pi session: pi ignores custom entries in context.
const (
	customState       = "pi-lsp/state"
	customPermissions = "pi-lsp/permissions"
	customTasks       = "pi-lsp/tasks"
	customTrim        = compaction.TrimCustomType
)

// SessionInfo names the current session.
type SessionInfo struct {
	ID   string `json:"sessionId"`
	Path string `json:"path"`
	Cwd  string `json:"cwd"`
	Name string `json:"name"`
}

func (h *Harness) sessionsRoot() string {
	root := h.cfg.SessionsRoot
	if root == "" {
		root = session.DefaultRoot()
	}
	return root
}

// currentSession returns the current session, or nil. The session stays
// inside the harness: the wire layers read it through methods with plain
// values (entries.go, view.go).
func (h *Harness) currentSession() *session.Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sess
}

// SessionInfo describes the current session (zero when none is open).
func (h *Harness) SessionInfo() SessionInfo {
	s := h.currentSession()
	if s == nil {
		return SessionInfo{Cwd: h.Cwd()}
	}
	return SessionInfo{ID: s.ID(), Path: s.Path(), Cwd: s.Cwd(), Name: s.Name()}
}

// NewSession starts a new session in cwd ("" = the harness cwd).
func (h *Harness) NewSession(ctx context.Context, cwd string) (SessionInfo, error) {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return SessionInfo{}, err
	}
	defer h.owner.release()
	if err := h.settleCheckpoint(ctx); err != nil {
		return SessionInfo{}, err
	}
	if cwd == "" {
		cwd = h.Cwd()
	}
	s, err := session.Create(ctx, h.sessionsRoot(), cwd, session.CreateOptions{})
	if err != nil {
		return SessionInfo{}, fmt.Errorf("new session: %w", err)
	}
	h.swapSession(ctx, s, false)
	return h.SessionInfo(), nil
}

// OpenSession opens (and locks) an existing session file and restores the
// harness state recorded in it.
func (h *Harness) OpenSession(ctx context.Context, path string) (SessionInfo, error) {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return SessionInfo{}, err
	}
	defer h.owner.release()
	if err := h.settleCheckpoint(ctx); err != nil {
		return SessionInfo{}, err
	}
	s, err := session.Open(ctx, path, session.OpenOptions{})
	if err != nil {
		return SessionInfo{}, fmt.Errorf("open session: %w", err)
	}
	h.swapSession(ctx, s, true)
	return h.SessionInfo(), nil
}

// CloseSession closes the current session, releasing its lock, and leaves
// the harness idle with no session until the next OpenSession or
// NewSession (a connection that attached to another process's session).
func (h *Harness) CloseSession() error {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return err
	}
	defer h.owner.release()
	_ = h.settleCheckpoint(context.Background()) // recorded before the session closes
	h.mu.Lock()
	s := h.sess
	h.sess = nil
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
}

// ContinueRecent opens the newest session of the cwd, or starts one.
func (h *Harness) ContinueRecent(ctx context.Context) (SessionInfo, error) {
	list, err := session.List(ctx, h.sessionsRoot(), h.Cwd())
	if err == nil && len(list) > 0 {
		info, err := h.OpenSession(ctx, list[0].Path)
		var locked *session.LockedError
		if !errors.As(err, &locked) {
			return info, err
		}
		// The newest session has a live writer: start a new one instead of
		// failing, and say so.
		h.sessionNotice(fmt.Sprintf("The most recent session %s is open in another pi-lsp process (pid %d); a new session was started instead.", list[0].Path, locked.PID))
	}
	return h.NewSession(ctx, "")
}

// swapSession makes s current, closing the old one, and restores state.
func (h *Harness) swapSession(ctx context.Context, s *session.Session, restore bool) {
	h.mu.Lock()
	old := h.sess
	h.sess = s
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
		h.restoreState(ctx)
	} else {
		h.recordInitialState(ctx)
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

// currentRef is the current model's "provider/id", when one is set.
func (h *Harness) currentRef() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.Ref(), h.hasModel
}

type persistedState struct {
	Mode        string            `json:"mode"`
	ModeModels  map[string]string `json:"modeModels,omitempty"`
	Yolo        bool              `json:"yolo"`
	AutoCompact *bool             `json:"autoCompact,omitempty"`
}

// restoreState reads model, thinking level, mode, permissions and tasks
// back from the current session.
func (h *Harness) restoreState(ctx context.Context) {
	s := h.currentSession()
	// Only the settings and the usage totals: the index has them, so a
	// large session opens without decoding its messages (the model's
	// context is built at the first prompt).
	c, err := s.ContextInfo(ctx)
	if err != nil {
		h.log.Warn("restore: context", "err", err)
	}
	sum, last, err := s.ContextUsage(ctx)
	if err != nil {
		h.log.Warn("restore: usage", "err", err)
	}
	if c.Provider != "" && c.ModelID != "" && h.cfg.Models != nil {
		if m, err := h.cfg.Models.Find(ctx, c.Provider+"/"+c.ModelID); err == nil {
			h.mu.Lock()
			h.model, h.hasModel = m, true
			h.mu.Unlock()
		}
	}
	trusted, why := h.sessionTrust(s.Path())
	dropped := false
	h.mu.Lock()
	if c.ThinkingLevel != "" {
		h.thinking = llm.ThinkingLevel(c.ThinkingLevel)
	}
	if raw, ok := s.LatestCustom(customState); ok {
		var st persistedState
		if json.Unmarshal(raw, &st) == nil {
			if h.modeByID(st.Mode) != nil {
				h.mode = st.Mode
			}
			if st.ModeModels != nil {
				h.modeModels = st.ModeModels
			}
			switch {
			case trusted:
				h.yolo = st.Yolo
			case st.Yolo && !h.cfg.Yolo:
				dropped = true
				h.yolo = h.cfg.Yolo
			default:
				h.yolo = h.cfg.Yolo
			}
			if st.AutoCompact != nil {
				h.autoCompact = *st.AutoCompact
			}
		}
	}
	if raw, ok := s.LatestCustom(customPermissions); ok {
		var p Permissions
		if json.Unmarshal(raw, &p) == nil {
			if trusted {
				h.perms = p.normalized()
			} else {
				var d bool
				h.perms, d = narrowPermissions(h.cfg.Policies.apply(DefaultPermissions()), p.normalized())
				dropped = dropped || d
			}
			h.perms = h.cfg.Policies.enforceDenies(h.perms)
		}
	}
	if raw, ok := s.LatestCustom(customTasks); ok {
		var t struct {
			Tasks []tools.Task `json:"tasks"`
		}
		if json.Unmarshal(raw, &t) == nil {
			h.taskList = t.Tasks
		}
	}
	h.compactions = s.CountOnBranch("compaction")
	// The token counts are those of the context's messages, as pi's
	// session stats.
	// The cost is the whole file's: every priced message on every branch, as
	// the live total counts what each turn cost.
	sum.Cost = s.Cost()
	h.cumulative, h.lastUsage = sum, last
	h.mu.Unlock()
	if dropped {
		h.sessionNotice(untrustedNotice(s.Path(), why))
	}
}

// recordInitialState writes the model, thinking level and mode into a new
// session so that it resumes the same way.
func (h *Harness) recordInitialState(ctx context.Context) {
	s := h.currentSession()
	h.mu.Lock()
	m, has, th := h.model, h.hasModel, h.thinking
	h.mu.Unlock()
	if has {
		if _, err := s.AppendModelChange(ctx, m.Provider, m.ID); err != nil {
			h.log.Warn("record model", "err", err)
		}
	}
	if _, err := s.AppendThinkingLevel(ctx, string(th)); err != nil {
		h.log.Warn("record thinking", "err", err)
	}
	h.persistState(ctx)
}

func (h *Harness) persistState(ctx context.Context) {
	s := h.currentSession()
	if s == nil {
		return
	}
	h.mu.Lock()
	ac := h.autoCompact
	st := persistedState{Mode: h.mode, ModeModels: copyMap(h.modeModels), Yolo: h.yolo, AutoCompact: &ac}
	h.mu.Unlock()
	// Only a change is recorded: the session does not grow a state entry
	// per run.
	if raw, ok := s.LatestCustom(customState); ok {
		var last persistedState
		if json.Unmarshal(raw, &last) == nil && sameState(last, st) {
			return
		}
	}
	if _, err := s.AppendCustom(ctx, customState, st); err != nil {
		h.log.Warn("persist state", "err", err)
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ensureSession returns the current session, creating one in the cwd when
// none is open.
func (h *Harness) ensureSession(ctx context.Context) (*session.Session, error) {
	// Two prompts at once with no session must not create two.
	h.createMu.Lock()
	defer h.createMu.Unlock()
	if s := h.currentSession(); s != nil {
		return s, nil
	}
	s, err := session.Create(ctx, h.sessionsRoot(), h.Cwd(), session.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	h.swapSession(ctx, s, false)
	return s, nil
}

// Fork starts a new session holding the path to entryID (before it, or at
// it) and makes it current. editorText is the text of the user message a
// "before" fork left out.
func (h *Harness) Fork(ctx context.Context, entryID string, at bool) (SessionInfo, string, error) {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return SessionInfo{}, "", err
	}
	defer h.owner.release()
	if err := h.settleCheckpoint(ctx); err != nil {
		return SessionInfo{}, "", err
	}
	src := h.currentSession()
	if src == nil {
		return SessionInfo{}, "", ErrNoSession
	}
	e, err := src.Entry(entryID)
	if err != nil {
		return SessionInfo{}, "", fmt.Errorf("fork: %w", err)
	}
	editorText := ""
	if !at && e.Message != nil && e.Message.Role == llm.RoleUser {
		editorText = e.Message.Text()
	}
	s, err := session.Fork(ctx, src, h.sessionsRoot(), entryID, at)
	if err != nil {
		return SessionInfo{}, "", fmt.Errorf("fork: %w", err)
	}
	h.swapSession(ctx, s, true)
	h.refCheckpoints(ctx)
	return h.SessionInfo(), editorText, nil
}

// Clone copies the current branch into a new session and makes it current.
func (h *Harness) Clone(ctx context.Context) (SessionInfo, error) {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return SessionInfo{}, err
	}
	defer h.owner.release()
	if err := h.settleCheckpoint(ctx); err != nil {
		return SessionInfo{}, err
	}
	src := h.currentSession()
	if src == nil {
		return SessionInfo{}, ErrNoSession
	}
	s, err := session.Clone(ctx, src, h.sessionsRoot())
	if err != nil {
		return SessionInfo{}, fmt.Errorf("clone: %w", err)
	}
	h.swapSession(ctx, s, true)
	h.refCheckpoints(ctx)
	return h.SessionInfo(), nil
}

// SetName names the session.
func (h *Harness) SetName(ctx context.Context, name string) error {
	s, err := h.ensureSession(ctx)
	if err != nil {
		return err
	}
	if err := s.SetName(ctx, name); err != nil {
		return err
	}
	h.emit(Event{Type: EvSessionInfo, Name: name})
	return nil
}

// Label sets or clears the label of an entry.
func (h *Harness) Label(ctx context.Context, entryID, label string) error {
	s := h.currentSession()
	if s == nil {
		return ErrNoSession
	}
	if _, err := s.Entry(entryID); err != nil {
		return fmt.Errorf("label: %w", err)
	}
	return s.SetLabel(ctx, entryID, label)
}

// Messages returns the context messages of the current branch (what the
// model would see, before hooks), for history views.
func (h *Harness) Messages(ctx context.Context) ([]llm.Message, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil
	}
	c, err := s.BuildContext(ctx)
	if err != nil {
		return nil, err
	}
	return c.Messages, nil
}

// DisplayHistory is the current branch's context as events carry it (see
// displayCopy), for seeding a display. The wire masks its secrets.
func (h *Harness) DisplayHistory(ctx context.Context) []llm.Message {
	msgs, err := h.Messages(ctx)
	if err != nil {
		h.log.Warn("display history", "err", err)
		return nil
	}
	for i := range msgs {
		msgs[i] = h.displayCopy(msgs[i])
	}
	return msgs
}

func sameState(a, b persistedState) bool {
	if a.Mode != b.Mode || a.Yolo != b.Yolo || (a.AutoCompact == nil) != (b.AutoCompact == nil) ||
		(a.AutoCompact != nil && *a.AutoCompact != *b.AutoCompact) || len(a.ModeModels) != len(b.ModeModels) {
		return false
	}
	for k, v := range a.ModeModels {
		if b.ModeModels[k] != v {
			return false
		}
	}
	return true
}
