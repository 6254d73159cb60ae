package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
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

// persistState records the harness's mode, mode models, yolo and
// auto-compaction in the current session when they changed (sessionstate.go).
func (h *Harness) persistState(ctx context.Context) { h.sessions.persistState(ctx) }

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
