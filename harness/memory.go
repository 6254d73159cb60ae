package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/session"
)

// memoryHolder is the harness's side of observational memory: the session's
// settings and the engine of its current branch. The engine is the one
// writer of the memory records; the holder only replaces it when the
// session or the branch changes.
type memoryHolder struct {
	mu       sync.Mutex
	settings memory.Settings
	eng      *memory.Engine
	sess     *session.Session
	lastCall time.Time // the last main model call: the idle trigger
	lastProv string    // its provider: the provider-change trigger
}

// MemoryInfo is what memory/configure answers.
type MemoryInfo struct {
	Settings memory.Settings `json:"settings"`
	Budget   *memory.Budget  `json:"budget,omitempty"`
	Notice   string          `json:"notice,omitempty"`
}

// MemoryView is what memory/show answers: the observation log and how it
// came about.
type MemoryView struct {
	Settings     memory.Settings    `json:"settings"`
	Budget       *memory.Budget     `json:"budget,omitempty"`
	Status       memory.Status      `json:"status"`
	Observations string             `json:"observations"`
	CurrentTask  string             `json:"currentTask"`
	Suggested    string             `json:"suggestedResponse"`
	Buffered     []memory.Chunk     `json:"buffered"`
	Reflection   *memory.Reflection `json:"reflection,omitempty"`
}

func (h *Harness) memorySettings() memory.Settings {
	h.mem.mu.Lock()
	defer h.mem.mu.Unlock()
	if h.mem.settings.Mode == "" {
		return h.defaultMemory()
	}
	return h.mem.settings
}

func (h *Harness) defaultMemory() memory.Settings {
	s := h.cfg.Memory
	if s.Mode == "" {
		s.Mode = memory.ModeCompaction
	}
	return s
}

// observational reports whether the session uses observational memory.
func (h *Harness) observational() bool { return h.memorySettings().Observational() }

// ConfigureMemory is memory/configure: it validates s (a bad mode, threshold,
// policy or model is ErrInvalid), records it in the session and applies it
// from the next model call.
func (h *Harness) ConfigureMemory(ctx context.Context, s memory.Settings) (MemoryInfo, error) {
	if err := s.Validate(); err != nil {
		return MemoryInfo{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if s.Model != "" {
		if h.cfg.Models == nil {
			return MemoryInfo{}, fmt.Errorf("%w: unknown model %q", ErrInvalid, s.Model)
		}
		if _, err := h.cfg.Models.Find(ctx, s.Model); err != nil {
			return MemoryInfo{}, fmt.Errorf("%w: unknown model %q: %v", ErrInvalid, s.Model, err)
		}
	}
	sess, err := h.ensureSession(ctx)
	if err != nil {
		return MemoryInfo{}, err
	}
	if _, err := sess.AppendCustom(ctx, memory.CustomSettings, s); err != nil {
		return MemoryInfo{}, fmt.Errorf("record memory settings: %w", err)
	}
	h.mem.mu.Lock()
	h.mem.settings = s
	h.mem.mu.Unlock()
	info := MemoryInfo{Settings: s}
	if m, err := h.Model(ctx); err == nil {
		b := memory.BudgetFor(m.ContextWindow, s)
		info.Budget, info.Notice = &b, b.Notice
	}
	h.emitMemory("configure", "", "")
	return info, nil
}

// MemoryShow is memory/show.
func (h *Harness) MemoryShow(ctx context.Context) (MemoryView, error) {
	v := MemoryView{Settings: h.memorySettings(), Buffered: []memory.Chunk{}}
	if m, err := h.Model(ctx); err == nil {
		b := memory.BudgetFor(m.ContextWindow, v.Settings)
		v.Budget = &b
	}
	eng, err := h.memoryEngine(ctx)
	if err != nil {
		return v, err
	}
	if eng == nil {
		v.Status = memory.Status{Mode: v.Settings.Mode}
		return v, nil
	}
	st := eng.State()
	v.Status = h.memoryStatus(eng)
	v.Observations, v.CurrentTask, v.Suggested, v.Reflection = st.Text(), st.Task, st.Suggested, st.Reflection
	v.Buffered = append(v.Buffered, st.Buffered...)
	return v, nil
}

func (h *Harness) memoryStatus(eng *memory.Engine) memory.Status {
	s := eng.Status()
	s.Mode = h.memorySettings().Mode
	if m, err := h.Model(context.Background()); err == nil {
		b := memory.BudgetFor(m.ContextWindow, h.memorySettings()).Shared(s.ObservationTokens)
		s.ObserveTokens, s.ReflectTokens = b.Observe, b.Reflect
	}
	return s
}

// resetMemory drops the engine (a new session or branch) and restores the
// session's memory settings; the engine is rebuilt from the branch's
// records on first use.
func (h *Harness) resetMemory(ctx context.Context) {
	s := h.currentSession()
	h.mem.mu.Lock()
	old := h.mem.eng
	h.mem.eng, h.mem.sess = nil, nil
	h.mem.settings = memory.Settings{}
	h.mem.lastCall, h.mem.lastProv = time.Time{}, ""
	if s != nil {
		if raw, ok := s.LatestCustom(memory.CustomSettings); ok {
			var st memory.Settings
			if json.Unmarshal(raw, &st) == nil && st.Validate() == nil {
				h.mem.settings = st
			}
		}
	}
	h.mem.mu.Unlock()
	if old != nil {
		old.Close()
	}
}

// recordMemoryDefault writes the configured default (--memory, settings)
// into a new session, so that it resumes with the same memory.
func (h *Harness) recordMemoryDefault(ctx context.Context) {
	s := h.currentSession()
	if s == nil || h.cfg.Memory.Mode == "" {
		return
	}
	if _, err := s.AppendCustom(ctx, memory.CustomSettings, h.cfg.Memory); err != nil {
		h.log.Warn("record memory settings", "err", err)
		return
	}
	h.mem.mu.Lock()
	h.mem.settings = h.cfg.Memory
	h.mem.mu.Unlock()
}

// announceMemory tells the display the memory status of the session just
// made current (after its session event, which resets the display).
func (h *Harness) announceMemory() {
	if h.observational() {
		h.emitMemory("restore", "", "")
	}
}

// memoryEngine returns the engine of the current branch, folding its
// records in on first use; nil when no session is open.
func (h *Harness) memoryEngine(ctx context.Context) (*memory.Engine, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil
	}
	h.mem.mu.Lock()
	defer h.mem.mu.Unlock()
	if h.mem.eng != nil && h.mem.sess == s {
		return h.mem.eng, nil
	}
	if h.mem.eng != nil {
		h.mem.eng.Close()
	}
	model, _ := h.Model(ctx)
	est := h.estimator(model)
	eng := memory.NewEngine(memory.Config{
		Streamer: h.cfg.Streamer,
		Session:  s,
		// The model's estimator, which every answer's usage calibrates
		// (calibrate): memory counts in the provider's tokens.
		Count:  est.Text,
		Now:    h.cfg.Now,
		Logger: h.log,
		OnEvent: func(ev memory.Event) {
			st := ev.Status
			st.Mode = memory.ModeObservational
			h.emit(Event{Type: EvMemory, Reason: ev.Kind, Summary: ev.Phase, Error: ev.Error, Memory: &st})
		},
	})
	entries, err := s.ContextEntries(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory: read branch: %w", err)
	}
	for _, e := range entries {
		if e.Type == "custom" && (e.CustomType == memory.CustomObservations || e.CustomType == memory.CustomReflection) {
			eng.Load(e.CustomType, e.Data)
		}
	}
	h.mem.eng, h.mem.sess = eng, s
	return eng, nil
}

// memoryMsgs is the branch's context as memory sees it: each message with
// its entry id and size in the provider's tokens (est, the model's
// estimator, which every answer's usage calibrates, as for compaction).
func (h *Harness) memoryMsgs(ctx context.Context, est *compaction.Estimator) ([]memory.Msg, error) {
	s := h.currentSession()
	if s == nil {
		return nil, nil
	}
	c, err := s.BuildContext(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Msg, len(c.Messages))
	for i := range c.Messages {
		out[i] = memory.Msg{EntryID: c.EntryIDs[i], Message: &c.Messages[i], Tokens: est.EntryMessage(c.EntryIDs[i], &c.Messages[i])}
	}
	return out, nil
}

// memoryContext is contextMessages in observational mode: the observations
// and the current task as two user messages, then the unobserved raw
// messages. ok is false in compaction mode.
func (h *Harness) memoryContext(ctx context.Context) (msgs []llm.Message, ok bool, err error) {
	if !h.observational() {
		return nil, false, nil
	}
	model, _ := h.Model(ctx)
	all, err := h.memoryMsgs(ctx, h.estimator(model))
	if err != nil {
		return nil, true, err
	}
	eng, err := h.memoryEngine(ctx)
	if err != nil || eng == nil {
		return nil, true, err
	}
	return memoryMessages(eng.View(all), all, h.now()), true, nil
}

// Wrappers of the observations in the context. The observation message
// only ever grows at its end between reflections, and the task comes after
// it, so consecutive requests share their prefix.
const (
	observationsPreamble = "[pi-lsp observational memory] The observations below are your memory of the earlier part of this session, written by your observer as the raw messages left the context. Treat them as what you know; the user's own words follow after them.\n\n<observations>\n"
	taskPreamble         = "[pi-lsp observational memory] Where the work stands:\n\n"
)

func memoryMessages(v memory.View, all []memory.Msg, now int64) []llm.Message {
	out := make([]llm.Message, 0, len(all)-v.RawFrom+2)
	if v.Observations != "" {
		out = append(out, llm.UserText(observationsPreamble+v.Observations+"\n</observations>", 0))
		var t strings.Builder
		t.WriteString(taskPreamble)
		if v.Task != "" {
			t.WriteString("<current-task>\n" + v.Task + "\n</current-task>\n")
		}
		if v.Suggested != "" {
			t.WriteString("<suggested-response>\n" + v.Suggested + "\n</suggested-response>\n")
		}
		t.WriteString("\nContinue from here; the messages after this one are the recent conversation.")
		out = append(out, llm.UserText(t.String(), 0))
	}
	for _, m := range all[v.RawFrom:] {
		out = append(out, *m.Message)
	}
	return out
}

func (h *Harness) emitMemory(kind, phase, errText string) {
	eng, err := h.memoryEngine(context.Background())
	var st memory.Status
	if err == nil && eng != nil {
		st = h.memoryStatus(eng)
	} else {
		st.Mode = h.memorySettings().Mode
	}
	h.emit(Event{Type: EvMemory, Reason: kind, Summary: phase, Error: errText, Memory: &st})
}

// closeMemory stops the engine's background work (Close).
func (h *Harness) closeMemory() {
	h.mem.mu.Lock()
	eng := h.mem.eng
	h.mem.eng, h.mem.sess = nil, nil
	h.mem.mu.Unlock()
	if eng != nil {
		eng.Close()
	}
}
