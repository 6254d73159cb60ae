package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/memory"
)

// contextMgr is the context manager of one model: the model's token
// estimator, the compaction budget in force for it, and the decision taken
// before each model request (observational memory or compaction: prepare).
// The run resolves it once per request (Harness.contextMgr) and calls it
// for that request's decision and, after the answer, its calibration.
//
// A manager is rebuilt only when the model, its context window or the
// compaction settings change; the estimator lives as long as the harness
// (it memoises counts per entry and carries the provider's calibration), so
// a rebuilt manager keeps its model's estimator.
type contextMgr struct {
	h      *Harness
	key    contextKey
	model  llm.Model
	budget compaction.Settings
	est    *compaction.Estimator
}

// contextKey is what a manager was built for: a change of any of these
// builds a new one.
type contextKey struct {
	ref    string
	window int
	auto   bool // automatic compaction on
}

// contextMgrs holds the harness's managers, one per model family (model
// id, the estimator's key).
type contextMgrs struct {
	mu   sync.Mutex
	byID map[string]*contextMgr
	// estimators counts the estimators built: one per model id.
	estimators int
	// managers counts the managers built (a model, window or settings
	// change).
	managers int
	// decisions counts the prepare calls: one per model request.
	decisions atomic.Int64
}

// contextMgr returns the context manager of model, building it (and, the
// first time the model is seen, its estimator) only when the model, its
// window or the compaction settings changed since the last call.
func (h *Harness) contextMgr(model llm.Model) *contextMgr {
	h.mu.Lock()
	auto := h.autoCompact
	h.mu.Unlock()
	key := contextKey{ref: model.Ref(), window: model.ContextWindow, auto: auto}
	c := &h.ctxm
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.byID[model.ID]
	if old != nil && old.key == key {
		// The same manager; the model's request settings (a resolved key,
		// headers) are the caller's, for the summary request.
		cm := *old
		cm.model = model
		return &cm
	}
	var est *compaction.Estimator
	if old != nil {
		est = old.est
	} else {
		est = compaction.NewEstimator(model.ID)
		c.estimators++
	}
	var override *compaction.Settings
	if o, ok := h.cfg.BudgetOverrides[model.Ref()]; ok {
		override = &o
	}
	budget := compaction.BudgetFor(model.ContextWindow, override)
	budget.Enabled = auto
	cm := &contextMgr{h: h, key: key, model: model, budget: budget, est: est}
	if c.byID == nil {
		c.byID = map[string]*contextMgr{}
	}
	c.byID[model.ID] = cm
	c.managers++
	return cm
}

// estimator returns the token estimator for model (its context manager's).
func (h *Harness) estimator(model llm.Model) *compaction.Estimator {
	return h.contextMgr(model).est
}

// budget is the compaction budget in force for m (its context manager's).
func (h *Harness) budget(m llm.Model) compaction.Settings {
	return h.contextMgr(m).budget
}

// prepare is the decision before one model request: observational memory
// when the session chose it, compaction otherwise.
func (cm *contextMgr) prepare(ctx context.Context) error {
	h, model := cm.h, cm.model
	h.ctxm.decisions.Add(1)
	if !h.observational() {
		return cm.maybeCompact(ctx)
	}
	settings := h.memorySettings()
	all, err := h.memoryMsgs(ctx, cm.est)
	if err != nil {
		return err
	}
	eng, err := h.memoryEngine(ctx)
	if err != nil || eng == nil {
		return err
	}
	observer := model
	if settings.Model != "" {
		if m, err := h.cfg.Models.Find(ctx, settings.Model); err == nil {
			observer = m
		} else {
			h.log.Warn("memory: observer model", "model", settings.Model, "err", err)
		}
	}
	b := memory.BudgetFor(model.ContextWindow, settings)
	now := h.cfg.Now()
	h.mem.mu.Lock()
	trig := memory.TriggerNone
	ttl := memory.CacheTTL(model.Provider, model.ID, h.cfg.MemoryIdle[model.Ref()])
	switch {
	case h.mem.lastProv != "" && h.mem.lastProv != model.Provider:
		trig = memory.TriggerProvider
	case !h.mem.lastCall.IsZero() && now.Sub(h.mem.lastCall) > ttl:
		trig = memory.TriggerIdle
	}
	h.mem.lastCall, h.mem.lastProv = now, model.Provider
	h.mem.mu.Unlock()
	_, err = eng.Prepare(ctx, all, observer, b, trig)
	if err == nil {
		return nil
	}
	switch settings.Policy() {
	case memory.PolicyWarn:
		h.emit(Event{Type: EvError, Error: "warning: " + err.Error() + " (failurePolicy warn: going on with the raw history)"})
		return nil
	case memory.PolicyBypass:
		h.log.Warn("memory: bypassed", "err", err)
		return nil
	}
	return err
}

// maybeCompact runs before every model call, inside tool loops too. When
// the context is over the threshold it first trims old tool outputs (cheap,
// loses no decisions), and only when that is not enough summarizes. A window
// too small for the newest turn is a clear error, not a loop of compactions.
func (cm *contextMgr) maybeCompact(ctx context.Context) error {
	h, model, s, e := cm.h, cm.model, cm.budget, cm.est
	if model.ContextWindow <= 0 {
		return nil
	}
	items, err := h.branchItems(ctx)
	if err != nil {
		return err
	}
	if !e.Calibrated() && 2*compaction.ContentTokens(items, e) > s.Threshold(model.ContextWindow) {
		// No answer has told yet how this provider counts, and the branch
		// may be over the window: plan with a margin (2x the estimate,
		// about 2 characters a token for chars/4) until one does.
		e.Assume(2)
	}
	d := compaction.Plan(items, model.ContextWindow, s, e, 0)
	switch d.Action {
	case compaction.ActionTrim:
		return h.recordTrims(ctx, d.Trims)
	case compaction.ActionCompact:
		err := h.compact(ctx, model, "threshold", "")
		if errors.Is(err, compaction.ErrNothingToCompact) || errors.Is(err, compaction.ErrAlreadyCompacted) {
			if ok, terr := cm.trimLastTurn(ctx); ok || terr != nil {
				return terr
			}
			return fmt.Errorf("%w: the context (%d tokens) does not fit the %s window (%d) and nothing is left to compact", compaction.ErrWindowTooSmall, d.Tokens, model.Ref(), model.ContextWindow)
		}
		return err
	case compaction.ActionTooSmall:
		if ok, terr := cm.trimLastTurn(ctx); ok || terr != nil {
			return terr
		}
		return fmt.Errorf("%s (%d-token window): %w", model.Ref(), model.ContextWindow, d.Err)
	}
	return nil
}

// trimLastTurn is the last resort when the newest turn alone does not fit
// the window: it trims the tool outputs still in the context, that turn's
// included, records the trims and says so. ok is false when even that
// does not fit.
func (cm *contextMgr) trimLastTurn(ctx context.Context) (ok bool, err error) {
	h, model := cm.h, cm.model
	sess := h.currentSession()
	entries, err := sess.ContextEntries(ctx)
	if err != nil {
		return false, fmt.Errorf("read branch: %w", err)
	}
	raw := make([]compaction.Item, 0, len(entries))
	for _, en := range entries {
		raw = append(raw, entryItem(en))
	}
	_, saved, trims, size, ok := compaction.TrimTail(raw, model.ContextWindow, cm.budget, cm.est, 0)
	if !ok {
		return false, nil
	}
	if err := h.recordTrims(ctx, trims); err != nil {
		return false, err
	}
	h.notice(fmt.Sprintf("The last turn alone does not fit the %s window (%d tokens): %d tool outputs in it were trimmed to about %d characters each (about %d tokens saved); the full outputs stay in the session file.",
		model.Ref(), model.ContextWindow, len(trims), size, saved))
	return true, nil
}

// calibrate tunes the model's token estimator with the prompt tokens the
// provider reported for req (compaction.Estimator.Calibrate), so that
// compaction plans in the provider's tokens.
func (cm *contextMgr) calibrate(req *llm.Request, msg *llm.Message) {
	if msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		return
	}
	u := msg.Usage
	reported := u.Input + u.CacheRead + u.CacheWrite
	if reported <= 0 {
		return
	}
	cm.est.Calibrate(reported, cm.est.RequestTokens(req))
}

// calibrateOverflow calibrates the estimator from a request the provider
// rejected as too long: at least one token over the window, or the count
// its error names.
func (cm *contextMgr) calibrateOverflow(req *llm.Request, errText string) {
	window := cm.model.ContextWindow
	if window <= 0 {
		return
	}
	n := max(overflowCount(errText, window), window+1)
	cm.est.Calibrate(n, cm.est.RequestTokens(req))
}
