package compaction

import (
	"sort"

	"github.com/pi-lsp/pi-lsp/llm"
)

// cutPoint is pi's CutPointResult.
type cutPoint struct {
	firstKept int  // index of the first kept item
	turnStart int  // for a split turn, the item that starts the turn; else -1
	split     bool // the cut lands inside a turn
}

// isCutPoint is pi's findValidCutPoints test: user, assistant, bash
// execution, custom and summary messages, custom_message and branch_summary
// entries. Never a tool result: it must stay with its tool call.
func isCutPoint(it *Item) bool {
	switch it.Kind {
	case KindBranchSummary, KindCustomMessage:
		return true
	case KindMessage:
		if it.Message == nil {
			return false
		}
		switch it.Message.Role {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleBashExecution, llm.RoleCustom,
			llm.RoleBranchSummary, llm.RoleCompactionSummary:
			return true
		}
	}
	return false
}

// isTurnStart is pi's findTurnStartIndex test: a user message or bash
// execution, or a custom_message or branch_summary entry.
func isTurnStart(it *Item) bool {
	switch it.Kind {
	case KindBranchSummary, KindCustomMessage:
		return true
	case KindMessage:
		return it.Message != nil && (it.Message.Role == llm.RoleUser || it.Message.Role == llm.RoleBashExecution)
	}
	return false
}

// counts says whether an item's tokens count towards the kept tail. pi counts
// only "message" entries; pi-lsp also counts custom_message and
// branch_summary entries, which are in the context as well.
func counts(it *Item) bool {
	switch it.Kind {
	case KindMessage, KindCustomMessage, KindBranchSummary:
		return it.Message != nil
	}
	return false
}

// findCutPoint is pi's findCutPoint over items[start:end]: walk back from
// the newest item adding estimates until keep tokens are reached, then cut at
// the first valid cut point at or after that item; pull preceding non-message
// entries (settings, labels) into the kept part. The cut is a split turn when
// it lands on something other than a user message inside a turn.
func findCutPoint(items []Item, start, end, keep int, e *Estimator) cutPoint {
	var cuts []int
	for i := start; i < end; i++ {
		if isCutPoint(&items[i]) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return cutPoint{firstKept: start, turnStart: -1}
	}
	cut := cuts[0]
	acc := 0
	for i := end - 1; i >= start; i-- {
		it := &items[i]
		if !counts(it) {
			continue
		}
		acc += e.item(it)
		if acc >= keep {
			if j := sort.SearchInts(cuts, i); j < len(cuts) {
				cut = cuts[j]
			}
			break
		}
	}
	landed := cut
	for cut > start {
		k := items[cut-1].Kind
		if k == KindCompaction || k == KindMessage {
			break
		}
		cut--
	}
	res := cutPoint{firstKept: cut, turnStart: -1}
	if m := items[landed].Message; items[landed].Kind == KindMessage && m != nil && m.Role == llm.RoleUser {
		return res
	}
	for i := landed; i >= start; i-- {
		if isTurnStart(&items[i]) {
			if i < cut { // a turn start pulled into the kept part is no split
				res.turnStart, res.split = i, true
			}
			break
		}
	}
	return res
}
