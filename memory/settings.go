package memory

import (
	"errors"
	"fmt"
	"strings"
)

// Modes of context management.
const (
	ModeCompaction    = "compaction"
	ModeObservational = "observational"
)

// Failure policies: what a failed observer or reflector does to the run.
const (
	PolicyThrow  = "throw"  // abort the run with a clear error; the session is unchanged
	PolicyWarn   = "warn"   // report a warning and go on with the raw context
	PolicyBypass = "bypass" // go on with the raw context, logged only
)

// Mastra's defaults, for windows of LargeWindow tokens or more.
const (
	DefaultObserveTokens = 30000
	DefaultReflectTokens = 40000
	LargeWindow          = 128000
	// BufferFraction: a background observation starts each time this share
	// of the observe threshold has accumulated unbuffered.
	BufferFraction = 0.2
	// KeepFraction: activation leaves about this share of the observe
	// threshold as raw messages.
	KeepFraction = 0.2
	// BlockFactor: above BlockFactor * threshold the harness stops waiting
	// for the background and observes (or reflects) on the hot path.
	BlockFactor = 1.2
	minObserve  = 1000
	minReflect  = 1000
)

// ErrInvalid wraps every rejected setting.
var ErrInvalid = errors.New("memory: invalid setting")

// Settings are a session's memory choices, as memory/configure takes them
// and as the pi-lsp/memory custom entry records them. Zero thresholds mean
// "scaled to the window".
type Settings struct {
	Mode          string `json:"mode"`
	ObserveTokens int    `json:"observeTokens,omitempty"`
	ReflectTokens int    `json:"reflectTokens,omitempty"`
	// Model is the observer's and reflector's model (provider/id); "" is
	// the session's model.
	Model         string `json:"model,omitempty"`
	FailurePolicy string `json:"failurePolicy,omitempty"`
	// ShareTokenBudget (Mastra's shareTokenBudget; nil is true): the raw
	// messages may use the part of the reflect budget the observations do
	// not, so the observe threshold in force is observe + reflect - the
	// log's tokens, never less than observe (Budget.Shared).
	ShareTokenBudget *bool `json:"shareTokenBudget,omitempty"`
}

// SharesBudget reports whether the raw messages share the reflect budget.
func (s Settings) SharesBudget() bool { return s.ShareTokenBudget == nil || *s.ShareTokenBudget }

// Observational reports whether s chooses observational memory.
func (s Settings) Observational() bool { return s.Mode == ModeObservational }

// Policy is the failure policy in force (throw by default).
func (s Settings) Policy() string {
	if s.FailurePolicy == "" {
		return PolicyThrow
	}
	return s.FailurePolicy
}

// Validate checks the mode, the thresholds and the policy (the model is
// checked by the caller against its registry). Errors wrap ErrInvalid.
func (s Settings) Validate() error {
	switch s.Mode {
	case ModeCompaction, ModeObservational:
	case "":
		return fmt.Errorf("%w: \"mode\" is required (compaction or observational)", ErrInvalid)
	default:
		return fmt.Errorf("%w: unknown mode %q (compaction or observational)", ErrInvalid, s.Mode)
	}
	if s.ObserveTokens < 0 {
		return fmt.Errorf("%w: observeTokens must not be negative (got %d)", ErrInvalid, s.ObserveTokens)
	}
	if s.ReflectTokens < 0 {
		return fmt.Errorf("%w: reflectTokens must not be negative (got %d)", ErrInvalid, s.ReflectTokens)
	}
	switch s.FailurePolicy {
	case "", PolicyThrow, PolicyWarn, PolicyBypass:
	default:
		return fmt.Errorf("%w: unknown failurePolicy %q (throw, warn or bypass)", ErrInvalid, s.FailurePolicy)
	}
	if s.Model != "" && !strings.Contains(s.Model, "/") {
		return fmt.Errorf("%w: model %q is not provider/id", ErrInvalid, s.Model)
	}
	return nil
}

// Budget is what the thresholds come to for one model window. Every field is
// in the provider's tokens.
type Budget struct {
	Window int `json:"window"`
	// Observe: once the unobserved raw messages pass it, they are observed.
	Observe int `json:"observeTokens"`
	// Reflect: once the observations pass it, they are condensed.
	Reflect int `json:"reflectTokens"`
	// Keep: about this much raw history stays after an activation.
	Keep int `json:"keepTokens"`
	// BufferEvery: a background observation starts each time this much has
	// accumulated past the last buffered chunk.
	BufferEvery int `json:"bufferEveryTokens"`
	// Reserve is left for the system prompt, the tools and the answer.
	Reserve int `json:"reserveTokens"`
	// Notice says what was clamped, when something was.
	Notice string `json:"notice,omitempty"`
	// Share: the observe threshold grows into the reflect budget the
	// observations leave unused (Shared).
	Share bool `json:"shareTokenBudget"`
}

// Shared is the budget in force with an observation log of logTokens: with
// Share, the raw messages may take the room the log leaves of the reflect
// budget, so Observe becomes observe + reflect - logTokens (never less than
// observe) and Keep follows it. BufferEvery stays that of the base
// threshold. The window still holds: raw history (at most BlockFactor times
// the threshold) plus the log never pass BlockFactor*(observe+reflect).
func (b Budget) Shared(logTokens int) Budget {
	if !b.Share {
		return b
	}
	if eff := b.Observe + b.Reflect - logTokens; eff > b.Observe {
		b.Observe = eff
		b.Keep = int(float64(eff) * KeepFraction)
	}
	return b
}

// BlockObserve is the raw size at which observation happens on the hot path.
func (b Budget) BlockObserve() int { return int(float64(b.Observe) * BlockFactor) }

// BlockReflect is the observation size at which reflection blocks.
func (b Budget) BlockReflect() int { return int(float64(b.Reflect) * BlockFactor) }

// BudgetFor scales the thresholds to window and clamps them:
//
//   - the defaults are Mastra's (observe 30k, reflect 40k) at windows of
//     128k or more (or unknown, <= 0), proportionally smaller below;
//   - the reserve is window/8, at least 2048 and at most 16384;
//   - BlockFactor*(observe+reflect) + reserve never exceeds the window: a
//     larger value (given or derived) is scaled down, with a Notice;
//   - keep is KeepFraction of observe, bufferEvery BufferFraction of it.
func BudgetFor(window int, s Settings) Budget {
	scale := 1.0
	if window > 0 && window < LargeWindow {
		scale = float64(window) / LargeWindow
	}
	b := Budget{Window: window}
	b.Observe = s.ObserveTokens
	if b.Observe == 0 {
		b.Observe = int(DefaultObserveTokens * scale)
	}
	b.Reflect = s.ReflectTokens
	if b.Reflect == 0 {
		b.Reflect = int(DefaultReflectTokens * scale)
	}
	if window > 0 {
		b.Reserve = min(max(window/8, 2048), 16384)
		room := float64(window-b.Reserve) / BlockFactor
		if sum := float64(b.Observe + b.Reflect); sum > room {
			f := room / sum
			o, r := b.Observe, b.Reflect
			b.Observe = max(int(float64(o)*f), minObserve)
			b.Reflect = max(int(float64(r)*f), minReflect)
			b.Notice = fmt.Sprintf("observeTokens %d and reflectTokens %d do not fit the %d-token window with %d reserved: clamped to %d and %d",
				o, r, window, b.Reserve, b.Observe, b.Reflect)
		}
	}
	b.Keep = int(float64(b.Observe) * KeepFraction)
	b.BufferEvery = max(int(float64(b.Observe)*BufferFraction), 1)
	b.Share = s.SharesBudget()
	return b
}
