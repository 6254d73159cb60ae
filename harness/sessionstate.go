package harness

import (
	"context"
	"encoding/json"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// The session host's persisted state: what pi-lsp records in a session
// besides its messages (mode, mode models, yolo, auto-compaction, granted
// permissions, tasks) and brings back when the session is opened. The
// values live in the harness (guarded by its mu); the host reads and
// writes them at a swap and when they change.

type persistedState struct {
	Mode        string            `json:"mode"`
	ModeModels  map[string]string `json:"modeModels,omitempty"`
	Yolo        bool              `json:"yolo"`
	AutoCompact *bool             `json:"autoCompact,omitempty"`
}

// restoreState reads model, thinking level, mode, permissions and tasks
// back from the current session.
func (o *sessionHost) restoreState(ctx context.Context) {
	h := o.h
	s := o.current()
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
	// Grants and policies belong to the session, not to a branch: the latest
	// recorded anywhere in the file (issue 33 bug 13: a navigate to before
	// the grant, then another session and back, asked again).
	if raw, ok := s.LatestCustomInFile(customPermissions); ok {
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
func (o *sessionHost) recordInitialState(ctx context.Context) {
	h := o.h
	s := o.current()
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
	o.persistState(ctx)
}

func (o *sessionHost) persistState(ctx context.Context) {
	h := o.h
	s := o.current()
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
