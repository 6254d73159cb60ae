package protocol

// HistoryMarker is the display state's "history": what is older than its
// first item. Older is the number of display items before that item:
// exactly what display/history returns when paged back to the start (a
// tool result fills its call's item, entries that show nothing count
// nothing). Before is the cursor to pass to display/history.
type HistoryMarker struct {
	Older  int    `json:"older"`
	Before string `json:"before"`
}

// HistoryParams are display/history's params: the page of items just
// before the cursor Before, at most Limit items (1–1000, default 200) of
// whole turns.
type HistoryParams struct {
	Before string `json:"before"`
	Limit  int    `json:"limit"`
}

// HistoryResult is display/history's answer: Items oldest first, in the
// display state's item shape, and the cursor of the next older page, nil
// when the first item was reached.
type HistoryResult struct {
	Items  []Item  `json:"items"`
	Before *string `json:"before"`
}
