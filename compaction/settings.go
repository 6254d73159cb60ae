package compaction

import (
	"errors"
	"fmt"
)

// Settings are the compaction budgets in force for one model.
type Settings struct {
	// Enabled turns automatic compaction on. Manual compaction ignores it.
	Enabled bool `json:"enabled"`
	// ReserveTokens is kept free below the window for the model's answer and
	// the summarizer's prompt; compaction triggers above window-ReserveTokens.
	ReserveTokens int `json:"reserveTokens"`
	// KeepRecentTokens is about how much recent history survives a compaction
	// verbatim.
	KeepRecentTokens int `json:"keepRecentTokens"`
}

// pi's DEFAULT_COMPACTION_SETTINGS.
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// Budget rule constants, documented in docs/compaction.md.
const (
	// LargeWindow is the smallest window where pi's fixed defaults apply.
	LargeWindow = 128000
	// minReserveTokens is the smallest reserve handed out below LargeWindow.
	minReserveTokens = 2048
)

// ErrWindowTooSmall says the model's window cannot hold even the part of the
// conversation that compaction cannot remove. Compacting again would loop.
var ErrWindowTooSmall = errors.New("compaction: context window too small")

// BudgetFor returns the settings for a model with the given context window.
//
// A non-nil override (the user's per-model setting) wins; its zero
// ReserveTokens or KeepRecentTokens are filled in from the derived budget, and
// its Enabled is used as given.
//
// Without an override the budget is derived from the window so that a
// compaction leaves about half of (window - reserve) free:
//
//	window >= 128000 or unknown (<= 0): pi's defaults, reserve 16384, keep 20000
//	otherwise: reserve = clamp(window/8, 2048, 16384)
//	           keep    = min(20000, (window-reserve)/2 - reserve/2), at least 0
//
// The reserve/2 taken off the keep budget leaves room for the summary itself.
func BudgetFor(contextWindow int, override *Settings) Settings {
	s := derive(contextWindow)
	if override == nil {
		return s
	}
	out := *override
	if out.ReserveTokens <= 0 {
		out.ReserveTokens = s.ReserveTokens
	}
	if out.KeepRecentTokens <= 0 {
		out.KeepRecentTokens = s.KeepRecentTokens
	}
	return out
}

func derive(window int) Settings {
	if window <= 0 || window >= LargeWindow {
		return Settings{Enabled: true, ReserveTokens: DefaultReserveTokens, KeepRecentTokens: DefaultKeepRecentTokens}
	}
	reserve := min(max(window/8, minReserveTokens), DefaultReserveTokens)
	keep := (window-reserve)/2 - reserve/2
	keep = min(max(keep, 0), DefaultKeepRecentTokens)
	return Settings{Enabled: true, ReserveTokens: reserve, KeepRecentTokens: keep}
}

// Threshold is the context size above which auto-compaction triggers:
// contextWindow - ReserveTokens.
func (s Settings) Threshold(contextWindow int) int { return contextWindow - s.ReserveTokens }

// ShouldCompact reports whether auto-compaction should run: it is enabled,
// the window is known, and contextTokens > contextWindow - ReserveTokens.
func ShouldCompact(contextTokens, contextWindow int, s Settings) bool {
	if !s.Enabled || contextWindow <= 0 {
		return false
	}
	return contextTokens > s.Threshold(contextWindow)
}

// TooSmall reports whether a window cannot work with these settings: the
// reserve leaves nothing, or turnTokens (the tokens that would remain after
// the best possible compaction: system prompt, summary and the part of the
// newest turn that cannot be cut) exceed contextWindow - ReserveTokens.
// Callers turn a true into an error event (see CheckFits) instead of
// compacting again.
func TooSmall(contextWindow, turnTokens int, s Settings) bool {
	if contextWindow <= 0 {
		return false
	}
	return s.ReserveTokens >= contextWindow || turnTokens > s.Threshold(contextWindow)
}

// CheckFits returns an error wrapping ErrWindowTooSmall, with the numbers,
// when TooSmall is true, and nil otherwise.
func CheckFits(contextWindow, turnTokens int, s Settings) error {
	if !TooSmall(contextWindow, turnTokens, s) {
		return nil
	}
	return fmt.Errorf("%w: %d tokens cannot be compacted further, but the window is %d with %d reserved (room for %d)",
		ErrWindowTooSmall, turnTokens, contextWindow, s.ReserveTokens, max(s.Threshold(contextWindow), 0))
}
