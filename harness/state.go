package harness

import (
	"context"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
)

// State is what session/state reports.
type State struct {
	Phase          Phase             `json:"phase"`
	IsRunning      bool              `json:"isRunning"`
	SessionID      string            `json:"sessionId"`
	Path           string            `json:"path"`
	Cwd            string            `json:"cwd"`
	Name           string            `json:"name"`
	Model          string            `json:"model"`
	ThinkingLevel  llm.ThinkingLevel `json:"thinkingLevel"`
	MessageCount   int               `json:"messageCount"`
	Mode           string            `json:"mode"`
	Yolo           bool              `json:"yolo"`
	Sandbox        SandboxState      `json:"sandbox"`
	Workspace      []string          `json:"workspaceRoots"`
	Tokens         Tokens            `json:"tokens"`
	ContextTokens  int               `json:"contextTokens"`
	ContextWindow  int               `json:"contextWindow"`
	AutoCompaction bool              `json:"autoCompaction"`
	Steering       []string          `json:"steering"`
	FollowUp       []string          `json:"followUp"`
	Goal           *Goal             `json:"goal"`
}

// State reports phase, session, model and token accounting.
func (h *Harness) State(ctx context.Context) State {
	st := State{Phase: h.Phase(), IsRunning: h.IsRunning(), ThinkingLevel: h.Thinking(), Cwd: h.Cwd()}
	info := h.SessionInfo()
	st.SessionID, st.Path, st.Name = info.ID, info.Path, info.Name
	if m, err := h.Model(ctx); err == nil {
		st.Model = m.Ref()
	}
	ms := h.ModeState()
	st.Mode, st.Yolo = ms.Mode, ms.Yolo
	st.Sandbox, st.Workspace = h.SandboxState(), h.ws.Roots()
	st.MessageCount = h.messageCount(ctx)
	st.Tokens = h.tokens(ctx, h.tailMessages(ctx))
	st.ContextTokens, st.ContextWindow = st.Tokens.ContextTokens, st.Tokens.ContextWindow
	h.mu.Lock()
	st.AutoCompaction = h.autoCompact
	h.mu.Unlock()
	st.Steering, st.FollowUp = h.Queue()
	if st.Steering == nil {
		st.Steering = []string{}
	}
	if st.FollowUp == nil {
		st.FollowUp = []string{}
	}
	st.Goal = h.CurrentGoal()
	return st
}

func (h *Harness) addUsage(u llm.Usage) {
	h.mu.Lock()
	h.cumulative.Input += u.Input
	h.cumulative.Output += u.Output
	h.cumulative.CacheRead += u.CacheRead
	h.cumulative.CacheWrite += u.CacheWrite
	h.cumulative.TotalTokens += u.TotalTokens
	h.cumulative.Cost = h.cumulative.Cost.Add(u.Cost) // the llm client priced each message (models.json)
	h.mu.Unlock()
	h.emit(Event{Type: EvUsage, Tokens: h.tokensPtr()})
}

// tokens computes the token accounting for msgs (the current context, or
// its tail from the last usage on: see tailMessages).
func (h *Harness) tokens(ctx context.Context, msgs []llm.Message) Tokens {
	h.mu.Lock()
	cum := h.cumulative
	n := h.compactions
	last := h.lastUsage.Cost
	h.mu.Unlock()
	t := Tokens{Input: cum.Input, Output: cum.Output, CacheRead: cum.CacheRead, CacheWrite: cum.CacheWrite, Total: cum.TotalTokens, Compactions: n,
		Cost: cum.Cost, TurnCost: last}
	m, err := h.Model(ctx)
	if err != nil {
		return t
	}
	cm := h.contextMgr(m)
	s := cm.budget
	t.ContextWindow, t.ReserveTokens, t.KeepRecent = m.ContextWindow, s.ReserveTokens, s.KeepRecentTokens
	t.ContextTokens, _ = compaction.ContextTokens(msgs, cm.est)
	return t
}

// tokensPtr is the current accounting for events.
func (h *Harness) tokensPtr() *Tokens {
	ctx := context.Background()
	t := h.tokens(ctx, h.tailMessages(ctx))
	return &t
}
