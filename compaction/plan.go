package compaction

// Action is what Plan advises before a model call.
type Action int

// Actions, cheapest first.
const (
	// ActionNone: the context is under the threshold.
	ActionNone Action = iota
	// ActionTrim: trimming old tool outputs brings the context under the
	// threshold. Use Decision.Items for the request and record
	// Decision.Trims in a custom entry of type TrimCustomType.
	ActionTrim
	// ActionCompact: summarize (Prepare and Summarize on the branch).
	ActionCompact
	// ActionTooSmall: even a compaction cannot fit the window; report
	// Decision.Err (wraps ErrWindowTooSmall) instead of compacting.
	ActionTooSmall
)

// String names the action.
func (a Action) String() string {
	switch a {
	case ActionNone:
		return "none"
	case ActionTrim:
		return "trim"
	case ActionCompact:
		return "compact"
	case ActionTooSmall:
		return "too_small"
	}
	return "unknown"
}

// Decision is Plan's advice with the numbers behind it.
type Decision struct {
	Action    Action
	Tokens    int // context tokens now (usage + estimate)
	Threshold int // contextWindow - ReserveTokens
	// For ActionTrim: the branch with the trims applied, the trims and the
	// estimated tokens they save.
	Items []Item
	Trims []Trim
	Saved int
	// Irreducible estimates what no compaction can remove: the messages
	// from the last valid cut point on.
	Irreducible int
	Err         error
}

// Plan decides, before a model call, how to keep a branch inside the
// window: nothing, trim old tool outputs (cheap, loses no decisions), or
// compact (a summarizer call, lossy). It is the check the harness runs before
// every model call, inside tool loops too. trimChars <= 0 means
// DefaultTrimChars. Automatic relief is off when !s.Enabled.
func Plan(items []Item, contextWindow int, s Settings, e *Estimator, trimChars int) Decision {
	// The recorded usage can be far too low (a session written with another
	// model, or usage a provider under-reported): the content's own estimate
	// is a floor.
	d := Decision{Tokens: max(itemsContextTokens(items, e), ContentTokens(items, e)), Threshold: s.Threshold(contextWindow), Items: items}
	if !ShouldCompact(d.Tokens, contextWindow, s) {
		return d
	}
	trimmed, saved, trims := TrimToolOutputs(items, s, e, trimChars)
	if saved > 0 && !ShouldCompact(d.Tokens-saved, contextWindow, s) {
		d.Action, d.Items, d.Trims, d.Saved = ActionTrim, trimmed, trims, saved
		return d
	}
	d.Irreducible = irreducible(items, e)
	if err := CheckFits(contextWindow, d.Irreducible, s); err != nil {
		d.Action, d.Err = ActionTooSmall, err
		return d
	}
	d.Action = ActionCompact
	return d
}

// irreducible sums the estimates from the last valid cut point to the end.
func irreducible(items []Item, e *Estimator) int {
	start := contextStart(items)
	last := len(items)
	for i := len(items) - 1; i >= start; i-- {
		if isCutPoint(&items[i]) {
			last = i
			break
		}
	}
	n := 0
	for i := last; i < len(items); i++ {
		if counts(&items[i]) {
			n += e.item(&items[i])
		}
	}
	return n
}
