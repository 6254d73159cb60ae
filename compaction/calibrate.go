package compaction

import (
	"encoding/json"
	"math"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Calibration: an estimate (a BPE of a related family, or chars/4) can be
// far from what the provider counts. Numbers and code are 2-3 characters a
// token, not 4: a context of `seq 1 2500` outputs that chars/4 calls 10k
// tokens is 36k to the provider, and planning cuts on the lower figure find
// "nothing to compact" while every request is over the window. So each
// answer's reported prompt tokens calibrate the estimator of its model:
// every count it gives (cut points, keep budgets, trims) is in the
// provider's tokens.

// Bounds of the calibration factor.
const (
	minScale = 0.5
	maxScale = 8
	// minCalibrationTokens: requests smaller than this (estimated) do not
	// calibrate: the fixed parts a provider adds dominate them.
	minCalibrationTokens = 2000
)

// RequestTokens is the raw (uncalibrated) estimate of a whole request:
// system prompt, tool definitions and messages, as Calibrate expects it.
func (e *Estimator) RequestTokens(req *llm.Request) int {
	n := e.rawText(req.SystemPrompt)
	for i := range req.Tools {
		b, _ := json.Marshal(req.Tools[i]) // a tool definition always encodes
		n += e.rawText(string(b))
	}
	for i := range req.Messages {
		n += e.raw(&req.Messages[i])
	}
	return n
}

func (e *Estimator) rawText(s string) int {
	c := counter{codec: e.bpe()}
	c.add(s)
	return c.total()
}

// Calibrate records that a request estimated (RequestTokens) at estimated
// tokens was counted as reported by the provider (prompt tokens: input,
// cache read and cache write). The factor follows a rise at once and a
// fall slowly, so one small answer does not make the next request overshoot.
func (e *Estimator) Calibrate(reported, estimated int) {
	if e == nil || estimated < minCalibrationTokens || reported <= 0 {
		return
	}
	r := math.Min(math.Max(float64(reported)/float64(estimated), minScale), maxScale)
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !e.calibrated || r > e.scale:
		e.scale, e.calibrated = r, true
	default:
		e.scale = 0.7*e.scale + 0.3*r
	}
}

// Scale is the calibration factor in force (1 before any calibration).
func (e *Estimator) Scale() float64 {
	if e == nil {
		return 1
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.scale == 0 {
		return 1
	}
	return e.scale
}

func (e *Estimator) scaled(n int) int {
	s := e.Scale()
	if s == 1 || n == 0 {
		return n
	}
	return int(math.Ceil(float64(n) * s))
}

// Calibrated reports whether a provider's usage has calibrated e.
func (e *Estimator) Calibrated() bool {
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calibrated
}

// Assume sets a provisional factor on an estimator no answer has
// calibrated yet (the first prompt on a large session: the usage recorded
// in the file may be far too low, and the estimate of its content is the
// only measure); the first Calibrate replaces it.
func (e *Estimator) Assume(scale float64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.calibrated {
		e.scale = math.Min(math.Max(scale, minScale), maxScale)
	}
}

// ContentTokens estimates the context part of a branch from its content
// alone, without trusting any recorded usage.
func ContentTokens(items []Item, e *Estimator) int {
	ctx, _ := contextOf(items)
	n := 0
	for _, it := range ctx {
		n += e.item(it)
	}
	return n
}
