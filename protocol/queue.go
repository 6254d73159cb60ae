package protocol

// EditQueueParams are agent/editQueue's params: the queued message at Index
// of Queue ("steering" or "followUp"), which must still read Expect, gets
// Text as its typed text; without Text it is removed.
type EditQueueParams struct {
	Queue  string  `json:"queue"`
	Index  int     `json:"index"`
	Expect string  `json:"expect"`
	Text   *string `json:"text,omitempty"`
}

// RetryResult is agent/retry's result.
type RetryResult struct {
	Accepted bool `json:"accepted"`
}
