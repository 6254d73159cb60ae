package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Mode is a saved agent configuration: a name, a color, a default model, a
// prompt addition and the tools it may use.
type Mode struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Color        string `json:"color"`
	DefaultModel string `json:"defaultModel,omitempty"` // provider/id
	Prompt       string `json:"prompt,omitempty"`       // replaces the built-in mode text of the system prompt
	// ReadOnly modes refuse edit and execute tools.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Tools, when set, limits the mode to these tool names.
	Tools []string `json:"tools,omitempty"`
}

// DefaultModes are the built-in modes: Build (all tools), Plan (read-only,
// ends with submit_plan) and Fast (a short prompt and fewer tools).
func DefaultModes() []Mode {
	return []Mode{
		{ID: "build", Name: "Build", Color: "#4caf50"},
		{ID: "plan", Name: "Plan", Color: "#2196f3", ReadOnly: true},
		{ID: "fast", Name: "Fast", Color: "#ff9800",
			Tools: []string{"read", "grep", "find", "ls", "edit", "write", "bash"}},
	}
}

func (h *Harness) modeByID(id string) *Mode {
	for i := range h.cfg.Modes {
		if h.cfg.Modes[i].ID == id {
			return &h.cfg.Modes[i]
		}
	}
	return nil
}

// Modes lists the modes.
func (h *Harness) Modes() []Mode { return append([]Mode(nil), h.cfg.Modes...) }

// ModeState is the current mode, YOLO flag and the model each mode uses.
type ModeState struct {
	Mode       string            `json:"mode"`
	Yolo       bool              `json:"yolo"`
	Model      string            `json:"model"`
	ModeModels map[string]string `json:"modeModels"`
}

// ModeState returns the current mode state.
func (h *Harness) ModeState() ModeState {
	h.mu.Lock()
	defer h.mu.Unlock()
	ref := ""
	if h.hasModel {
		ref = h.model.Ref()
	}
	return ModeState{Mode: h.mode, Yolo: h.yolo, Model: ref, ModeModels: copyMap(h.modeModels)}
}

// SetMode switches mode: it aborts a running agent, remembers the model used
// in the old mode and restores the one last used in the new mode (or the
// mode's default).
func (h *Harness) SetMode(ctx context.Context, id string) (ModeState, error) {
	m := h.modeByID(id)
	if m == nil {
		return ModeState{}, fmt.Errorf("%w: mode %q", ErrNotFound, id)
	}
	if err := h.owner.claimIdle(ctx); err != nil {
		return ModeState{}, err
	}
	defer h.owner.release()
	return h.switchMode(ctx, id)
}

// switchMode is SetMode for the caller holding the idle harness.
func (h *Harness) switchMode(ctx context.Context, id string) (ModeState, error) {
	m := h.modeByID(id)
	if m == nil {
		return ModeState{}, fmt.Errorf("%w: mode %q", ErrNotFound, id)
	}
	h.owner.applyMu.Lock()
	defer h.owner.applyMu.Unlock()
	h.mu.Lock()
	if h.hasModel {
		h.modeModels[h.mode] = h.model.Ref()
	}
	h.mode = id
	want := h.modeModels[id]
	if want == "" {
		want = m.DefaultModel
	}
	h.mu.Unlock()
	if want != "" {
		if err := h.applyModel(ctx, want); err != nil {
			h.log.Warn("mode model", "mode", id, "model", want, "err", err)
		}
	}
	h.persistState(ctx)
	h.emitMode()
	return h.ModeState(), nil
}

// SetYolo turns YOLO (approve everything not denied) on or off.
func (h *Harness) SetYolo(ctx context.Context, on bool) {
	h.mu.Lock()
	h.yolo = on
	h.mu.Unlock()
	h.persistState(ctx)
	h.emitMode()
}

// emitMode reports the current mode and YOLO flag.
func (h *Harness) emitMode() {
	h.emit(h.modeEvent())
}

// Model returns the current model, resolving the default when none is set.
func (h *Harness) Model(ctx context.Context) (llm.Model, error) {
	h.mu.Lock()
	if h.hasModel {
		m := h.model
		h.mu.Unlock()
		return m, nil
	}
	h.mu.Unlock()
	if h.cfg.Models == nil {
		return llm.Model{}, fmt.Errorf("%w: no model registry", ErrNoModel)
	}
	var m llm.Model
	var err error
	if h.cfg.DefaultModel != "" {
		m, err = h.cfg.Models.Find(ctx, h.cfg.DefaultModel)
	} else {
		m, err = h.cfg.Models.Default(ctx)
	}
	if err != nil {
		if errors.Is(err, ErrNoModel) {
			return llm.Model{}, err
		}
		return llm.Model{}, fmt.Errorf("%w: %w", ErrNoModel, err)
	}
	h.mu.Lock()
	if !h.hasModel {
		h.model, h.hasModel = m, true
	}
	m = h.model
	h.mu.Unlock()
	return m, nil
}

// SetModel selects a model ("provider/id"). During a run the change is
// queued and written at turn_end.
func (h *Harness) SetModel(ctx context.Context, ref string) (string, error) {
	if h.cfg.Models == nil {
		return "", fmt.Errorf("%w: no model registry", ErrNoModel)
	}
	m, err := h.cfg.Models.Find(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	_, err = h.owner.change(ctx, func(ctx context.Context) error { return h.applyModel(ctx, m.Ref()) })
	return m.Ref(), err
}

func (h *Harness) applyModel(ctx context.Context, ref string) error {
	m, err := h.cfg.Models.Find(ctx, ref)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	h.mu.Lock()
	same := h.hasModel && h.model.Ref() == m.Ref()
	h.model, h.hasModel = m, true
	h.modeModels[h.mode] = m.Ref()
	s := h.sessions.cur
	h.mu.Unlock()
	if s != nil && !same {
		if _, err := s.AppendModelChange(ctx, m.Provider, m.ID); err != nil {
			return fmt.Errorf("record model change: %w", err)
		}
		h.persistState(ctx)
	}
	h.emit(Event{Type: EvModel, Model: m.Ref(), Tokens: h.tokensPtr()})
	return nil
}

// Thinking returns the thinking level.
func (h *Harness) Thinking() llm.ThinkingLevel {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.thinking
}

// SetThinking sets the thinking level (off|low|medium|high|xhigh). During a
// run the change is queued to turn_end.
func (h *Harness) SetThinking(ctx context.Context, level llm.ThinkingLevel) error {
	switch level {
	case llm.ThinkingOff, llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh, llm.ThinkingXHigh:
	default:
		return fmt.Errorf("%w: thinking level %q (want off|low|medium|high|xhigh)", ErrInvalid, level)
	}
	apply := func(ctx context.Context) error {
		h.mu.Lock()
		h.thinking = level
		s := h.sessions.cur
		h.mu.Unlock()
		if s != nil {
			if _, err := s.AppendThinkingLevel(ctx, string(level)); err != nil {
				return fmt.Errorf("record thinking level: %w", err)
			}
		}
		h.emit(Event{Type: EvThinking, Thinking: level})
		return nil
	}
	_, err := h.owner.change(ctx, apply)
	return err
}

// activeTools returns the tools the current mode may use.
func (h *Harness) activeTools() []tools.Tool {
	h.mu.Lock()
	m := h.modeByID(h.mode)
	h.mu.Unlock()
	var out []tools.Tool
	for _, t := range append(h.tools[:len(h.tools):len(h.tools)], h.mcpTools()...) {
		name := t.Definition().Name
		if m != nil && m.Tools != nil && !contains(m.Tools, name) {
			continue
		}
		if m != nil && m.ReadOnly && (t.Category() == tools.Category("edit") || t.Category() == tools.Category("execute")) {
			continue
		}
		out = append(out, t)
	}
	return append(out, h.goalTools()...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// LoadModes reads modes from a JSON file (an array of Mode) and merges them
// into the built-ins: a mode with a built-in id replaces its fields that are
// set; a new id adds a mode. A missing file gives the built-ins.
func LoadModes(path string) ([]Mode, error) {
	modes := DefaultModes()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return modes, nil
	}
	if err != nil {
		return modes, fmt.Errorf("modes: %w", err)
	}
	var extra []Mode
	if err := json.Unmarshal(data, &extra); err != nil {
		return modes, fmt.Errorf("modes: %s: %w", path, err)
	}
	for i, m := range extra {
		if m.ID == "" {
			return modes, fmt.Errorf("modes: %s: mode %d has no id", path, i)
		}
		found := false
		for j := range modes {
			if modes[j].ID != m.ID {
				continue
			}
			found = true
			b := &modes[j]
			if m.Name != "" {
				b.Name = m.Name
			}
			if m.Color != "" {
				b.Color = m.Color
			}
			if m.DefaultModel != "" {
				b.DefaultModel = m.DefaultModel
			}
			if m.Prompt != "" {
				b.Prompt = m.Prompt
			}
			if m.Tools != nil {
				b.Tools = m.Tools
			}
			b.ReadOnly = b.ReadOnly || m.ReadOnly
		}
		if !found {
			if m.Name == "" {
				m.Name = m.ID
			}
			modes = append(modes, m)
		}
	}
	return modes, nil
}
