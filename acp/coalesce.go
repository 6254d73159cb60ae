package acp

import (
	"encoding/json"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Chunk coalescing defaults. A message or thought chunk line carries a fixed
// envelope (JSON-RPC, the session id, sessionUpdate, the content block:
// ≈190 B with a UUID session id) whatever its text, so a slow stream sent
// on the display scheduler's 250/500 ms windows pays more envelope than
// text. Text waits until it outweighs its envelope DefaultWorth times, but
// never longer than DefaultMaxLatency after its first character.
const (
	DefaultWorth      = 1.5
	DefaultMaxLatency = 1500 * time.Millisecond
)

// coalescer decides when coalesced chunk text goes out.
type coalescer struct {
	debounce, cap, maxLatency time.Duration
	// worth is the pending text, in bytes, that pays for one envelope.
	worth int
}

// due is when n bytes of text, pending since first and last added at
// last, are sent: once they are worth their envelope, on the display
// scheduler's rule (a pause of debounce, or cap after the first byte);
// before that only at maxLatency after the first byte. Anything urgent (a
// tool call, a permission request, the end of the turn) flushes earlier.
func (c coalescer) due(n int, first, last time.Time) time.Time {
	hard := first.Add(c.maxLatency)
	if n < c.worth {
		return hard
	}
	d := last.Add(c.debounce)
	if cp := first.Add(c.cap); cp.Before(d) {
		d = cp
	}
	if hard.Before(d) {
		d = hard
	}
	return d
}

// chunkEnvelope is the size of an agent_message_chunk line with empty text
// for session id (newline included), as the SDK writes it.
func chunkEnvelope(id sdk.SessionId) int {
	b, err := json.Marshal(struct {
		JSONRPC string                  `json:"jsonrpc"`
		Method  string                  `json:"method"`
		Params  sdk.SessionNotification `json:"params"`
	}{"2.0", "session/update", sdk.SessionNotification{SessionId: id, Update: sdk.UpdateAgentMessageText("")}})
	if err != nil {
		return 200
	}
	return len(b) + 1
}
