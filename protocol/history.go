package protocol

// HistoryMarker is the display state's "history": what is older than its
// first item. Older counts the context's entries before that item (an
// upper bound of the items display/history returns: a tool result fills
// the item of its call, and some entries show nothing); Before is the
// cursor to pass to display/history.
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
