package display

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/session"
)

// The bounded display: the state carries the newest whole turns of the
// context only, and older ones are paged in with display/history. A page
// is built from the session's index, decoding only the entries it shows.

// Bounds of the display state and of a history page.
const (
	DefaultItems    = 200       // items of the state (display.items)
	MaxStateBytes   = 512 << 10 // the state's items, JSON encoded, about
	MaxHistoryLimit = 1000
	// squeezedOutput is what a tool output is cut to when a single turn is
	// over MaxStateBytes even with outputs at their display limit.
	squeezedOutput = 1 << 10
)

// ErrBadCursor is returned by Page for a cursor that names no entry of the
// current context.
var ErrBadCursor = errors.New("display: unknown history cursor")

// HistorySource reads the current context for the display;
// *harness.Harness is one.
type HistorySource interface {
	ContextSlots(ctx context.Context) ([]session.Slot, error)
	DisplayMessages(ctx context.Context, ids []string) ([]llm.Message, []string, error)
}

// Page returns the items of the whole turns just before the context entry
// before ("" = the end of the context), oldest first: as many turns as fit
// in limit items and maxBytes of JSON, and at least one. The marker names
// what is older still (nil when the first item was reached): its Older is
// the number of items before the page's first.
func Page(ctx context.Context, src HistorySource, before string, limit, maxBytes int) ([]Item, *protocol.HistoryMarker, error) {
	slots, err := src.ContextSlots(ctx)
	if err != nil {
		return nil, nil, err
	}
	end := len(slots)
	if before != "" {
		end = -1
		for i := len(slots) - 1; i >= 0; i-- {
			if slots[i].ID == before {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, nil, fmt.Errorf("%w %q", ErrBadCursor, before)
		}
	}
	var turns [][]Item
	n, size, k := 0, 0, end
	for k > 0 {
		j := k - 1
		for j > 0 && !slots[j].User {
			j--
		}
		ids := make([]string, 0, k-j)
		for _, sl := range slots[j:k] {
			ids = append(ids, sl.ID)
		}
		msgs, mids, err := src.DisplayMessages(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		turn := ItemsFromEntries(msgs, mids)
		ts := itemsSize(turn)
		if n > 0 && (n+len(turn) > limit || size+ts > maxBytes) {
			break
		}
		if n == 0 && ts > maxBytes {
			for i := range turn {
				turn[i].Output = textcut.Tail(turn[i].Output, squeezedOutput)
			}
			ts = itemsSize(turn)
		}
		turns = append(turns, turn)
		n, size, k = n+len(turn), size+ts, j
		if n >= limit {
			break
		}
	}
	items := make([]Item, 0, n)
	for t := len(turns) - 1; t >= 0; t-- {
		items = append(items, turns[t]...)
	}
	var marker *protocol.HistoryMarker
	if k > 0 {
		// The items of the older turns, counted from the index (the same
		// turns a later Page builds, so paging back returns exactly this
		// many items).
		marker = &protocol.HistoryMarker{Older: session.CountItems(slots[:k]), Before: slots[k].ID}
	}
	return items, marker, nil
}

func itemsSize(items []Item) int {
	n := 0
	for _, it := range items {
		b, _ := json.Marshal(it) // an Item always encodes
		n += len(b) + 1
	}
	return n
}
