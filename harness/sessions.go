package harness

import (
	"context"
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/compaction"
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

func (h *Harness) sessionsRoot() string { return h.sessions.root() }

// currentSession returns the current session, or nil. The session stays
// inside the harness: the wire layers read it through methods with plain
// values (entries.go, view.go).
func (h *Harness) currentSession() *session.Session { return h.sessions.current() }

// SessionInfo describes the current session (zero when none is open).
func (h *Harness) SessionInfo() SessionInfo {
	s := h.currentSession()
	if s == nil {
		return SessionInfo{Cwd: h.Cwd()}
	}
	return SessionInfo{ID: s.ID(), Path: s.Path(), Cwd: s.Cwd(), Name: s.Name()}
}

// The session operations live on the session host (sessionops.go); these
// are its entry points, and its doc comment says what each may do while a
// run is going.

// NewSession starts a new session in cwd ("" = the harness cwd).
func (h *Harness) NewSession(ctx context.Context, cwd string) (SessionInfo, error) {
	return h.sessions.create(ctx, cwd)
}

// OpenSession opens (and locks) an existing session file and restores the
// harness state recorded in it. It is also how a session is switched to.
func (h *Harness) OpenSession(ctx context.Context, path string) (SessionInfo, error) {
	return h.sessions.open(ctx, path)
}

// CloseSession closes the current session, releasing its lock, and leaves
// the harness idle with no session until the next OpenSession or
// NewSession (a connection that attached to another process's session).
func (h *Harness) CloseSession() error { return h.sessions.close() }

// ContinueRecent opens the newest session of the cwd, or starts one.
func (h *Harness) ContinueRecent(ctx context.Context) (SessionInfo, error) {
	return h.sessions.continueRecent(ctx)
}

// Fork starts a new session holding the path to entryID (before it, or at
// it) and makes it current. editorText is the text of the user message a
// "before" fork left out.
func (h *Harness) Fork(ctx context.Context, entryID string, at bool) (SessionInfo, string, error) {
	return h.sessions.fork(ctx, entryID, at)
}

// Clone copies the current branch into a new session and makes it current.
func (h *Harness) Clone(ctx context.Context) (SessionInfo, error) { return h.sessions.clone(ctx) }

// SetName names the session.
func (h *Harness) SetName(ctx context.Context, name string) error {
	return h.sessions.setName(ctx, name)
}

// Label sets or clears the label of an entry.
func (h *Harness) Label(ctx context.Context, entryID, label string) error {
	return h.sessions.label(ctx, entryID, label)
}

// ensureSession returns the current session, creating one in the cwd when
// none is open.
func (h *Harness) ensureSession(ctx context.Context) (*session.Session, error) {
	return h.sessions.ensure(ctx)
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
