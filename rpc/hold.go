package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/tools"
)

// streamHolder is a Masker that can also hold streamed text back
// (*tools.Redactor).
type streamHolder interface {
	NewStreamTails() *tools.StreamTails
}

// holder holds back, per connection, the end of streamed text that could be
// the beginning of a secret (tools.StreamTails), so that a secret the model
// streams across two deltas is masked whole by egress: display/state append
// ops per path, and harness/event message_update deltas per deltaKind and
// contentIndex (a subagent_event's child's, per subagent as well). Held
// text goes out with the stream's next delta, or just before the op that
// ends the stream (the item's "streaming" false, a push of the next item,
// the run's end). A message_update whose text is partly
// held waits for the next event, and goes out before it carrying what was
// decided, so every event is sent once and in order. It is
// dropped when the text is sent whole another way: a state frame, a
// display/snapshot answer, a set of the string or of a member above it.
// Used under the stream's write lock, so in write order.
type holder struct {
	display *tools.StreamTails
	paths   map[string][]any // held display paths, by their encoded form
	events  *tools.StreamTails
	pending map[string]pendingEvent // the message_update of each held stream, not sent yet
	// items is the length of the display state's items (-1 until a state
	// frame or snapshot says): a pushed item's first text is held at its
	// index.
	items int
}

func newHolder(m Masker) *holder {
	sh, ok := m.(streamHolder)
	if !ok {
		return nil
	}
	return &holder{display: sh.NewStreamTails(), paths: map[string][]any{}, events: sh.NewStreamTails(), pending: map[string]pendingEvent{}, items: -1}
}

// apply returns the encoded messages to send for msg, in order, unmasked:
// msg with its streamed text less the new held tails, after the held text
// msg ends. The connection hands the stream its own message types, so msg
// is read back from its encoding, and only when it may carry streamed text.
func (h *holder) apply(msg jsonrpc2.Message) ([][]byte, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil || h == nil {
		return [][]byte{body}, err
	}
	display := bytes.Contains(body, []byte(`"display/state"`))
	event := bytes.Contains(body, []byte(`"harness/event"`))
	// Every display/snapshot answer is read, even when nothing is held: it
	// sets the item count that a later push's held text is placed by (the
	// frames it dropped were never sent).
	snap := bytes.Contains(body, []byte(`"state"`)) && bytes.Contains(body, []byte(`"version"`))
	if !display && !event && !snap {
		return [][]byte{body}, nil
	}
	var head struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &head) != nil {
		return [][]byte{body}, nil
	}
	switch {
	case head.Method == "display/state":
		if p := h.frame(head.Params); p != nil {
			return [][]byte{notification(head.Method, p)}, nil
		}
	case head.Method == "harness/event":
		return h.event(body, head.Params), nil
	case head.Method == "" && snap:
		var snap struct {
			Version *int64 `json:"version"`
			State   *struct {
				Items json.RawMessage `json:"items"`
			} `json:"state"`
		}
		if json.Unmarshal(head.Result, &snap) == nil && snap.Version != nil && snap.State != nil {
			h.dropDisplay()
			if len(snap.State.Items) > 0 {
				h.countArray(snap.State.Items)
			}
		}
	}
	return [][]byte{body}, nil
}

// notification encodes a notification as jsonrpc2 does.
func notification(method string, params json.RawMessage) []byte {
	return encodeRaw(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{"2.0", method, params})
}

func (h *holder) dropDisplay() {
	for _, k := range h.display.Keys() {
		h.display.Drop(k)
	}
	clear(h.paths)
}

// frame rewrites the ops of one display/state frame; nil keeps params.
func (h *holder) frame(params json.RawMessage) json.RawMessage {
	var f map[string]json.RawMessage
	if json.Unmarshal(params, &f) != nil {
		return nil
	}
	if st, ok := f["state"]; ok {
		h.dropDisplay()
		h.countItems(st)
		return nil
	}
	var ops []json.RawMessage
	if json.Unmarshal(f["ops"], &ops) != nil || (h.display.Len() == 0 && !bytes.Contains(f["ops"], []byte(`["a",`)) && !bytes.Contains(f["ops"], []byte(`["items"]`))) {
		return nil
	}
	out := make([]json.RawMessage, 0, len(ops)+1)
	for _, raw := range ops {
		var op []json.RawMessage
		var code string
		var path []any
		if json.Unmarshal(raw, &op) != nil || len(op) < 2 || json.Unmarshal(op[0], &code) != nil || json.Unmarshal(op[1], &path) != nil {
			out = append(out, raw)
			continue
		}
		key := string(op[1])
		if len(path) > 1 && path[0] == "items" && h.items >= 0 {
			if n, ok := path[1].(float64); ok && int(n) >= h.items {
				// The count is off (it cannot be, but a wrong index would
				// put held text on another item): pushes are not held
				// until a state says how many items there are.
				h.items = -1
			}
		}
		for _, k := range h.display.Keys() {
			if k == key && code == "a" {
				continue
			}
			hp := h.paths[k]
			switch {
			case isPrefix(path, hp) && (code == "s" || code == "d" || (code == "m" && len(op) > 2 && mergeNames(op[2], hp[len(path)]))):
				h.display.Drop(k) // sent whole, or gone
				delete(h.paths, k)
			case isPrefix(path, hp) || isPrefix(hp[:len(hp)-1], path):
				if text := h.display.Flush(k); text != "" {
					out = append(out, appendOp(json.RawMessage(k), text))
				}
				delete(h.paths, k)
			}
		}
		if len(path) == 1 && path[0] == "items" && len(op) == 3 {
			switch {
			case code == "s":
				h.countArray(op[2])
			case code == "p" && h.items >= 0:
				op[2] = h.holdPush(h.items, op[2])
				h.items++
				out = append(out, encodeRaw(op))
				continue
			}
		}
		if len(path) == 0 && code == "m" && len(op) == 3 {
			h.countItems(op[2])
		}
		var v string
		if code == "a" && len(op) == 3 && len(path) > 0 && json.Unmarshal(op[2], &v) == nil {
			h.paths[key] = path
			out = append(out, appendOp(op[1], h.display.Append(key, v)))
			if !h.display.Holds(key) {
				delete(h.paths, key)
			}
			continue
		}
		out = append(out, raw)
	}
	f["ops"] = encodeRaw(out)
	return encodeRaw(f)
}

// countItems reads the length of items from a display state (or an "m"
// op's object); without an items member the length stays as it was.
func (h *holder) countItems(state json.RawMessage) {
	var st struct {
		Items json.RawMessage `json:"items"`
	}
	if json.Unmarshal(state, &st) == nil && len(st.Items) > 0 {
		h.countArray(st.Items)
	}
}

func (h *holder) countArray(arr json.RawMessage) {
	var items []json.RawMessage
	if json.Unmarshal(arr, &items) == nil {
		h.items = len(items)
	} else {
		h.items = -1
	}
}

// holdPush holds back the tail of a pushed item's streamed strings (the
// first text of an answer, folded into its push) at the item's index, as
// if it had come in an "a" op; it returns the item to push.
func (h *holder) holdPush(index int, item json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		return item
	}
	changed := false
	for _, member := range []string{"text", "output"} {
		var v string
		if json.Unmarshal(m[member], &v) != nil || v == "" {
			continue
		}
		key := string(encodeRaw([]any{"items", index, member}))
		send := h.display.Append(key, v)
		if h.display.Holds(key) {
			h.paths[key] = []any{"items", float64(index), member}
		}
		if send != v {
			m[member], changed = encodeRaw(send), true
		}
	}
	if !changed {
		return item
	}
	return encodeRaw(m)
}

// event rewrites one harness/event notification (body, with params).
func (h *holder) event(body, params json.RawMessage) [][]byte {
	if len(h.pending) == 0 && !bytes.Contains(params, []byte(`"message_update"`)) {
		return [][]byte{body}
	}
	type streamed struct {
		Type         string `json:"type"`
		DeltaKind    string `json:"deltaKind"`
		Delta        string `json:"delta"`
		ContentIndex int    `json:"contentIndex"`
	}
	var p struct {
		Event struct {
			streamed
			Subagent *struct {
				ToolCallID string `json:"toolCallId"`
			} `json:"subagent"`
			Child *streamed `json:"child"`
		} `json:"event"`
	}
	if json.Unmarshal(params, &p) != nil {
		return [][]byte{body}
	}
	ev, prefix := p.Event.streamed, ""
	if ev.Type == "subagent_event" && p.Event.Child != nil {
		// A subagent's streamed text is held per subagent (its tool
		// call), like the parent's.
		ev, prefix = *p.Event.Child, "subagent/"
		if p.Event.Subagent != nil {
			prefix += p.Event.Subagent.ToolCallID + "/"
		}
	}
	update := ev.Type == "message_update" && ev.DeltaKind != ""
	key := prefix + ev.DeltaKind + "/" + strconv.Itoa(ev.ContentIndex)
	var out [][]byte
	for k, pe := range h.pending {
		if update && k == key {
			continue
		}
		out = append(out, eventBody(pe.params, pe.send+h.events.Flush(k)))
		delete(h.pending, k)
	}
	if !update {
		return append(out, body)
	}
	send := h.events.Append(key, ev.Delta)
	if pe, ok := h.pending[key]; ok {
		out = append(out, eventBody(pe.params, pe.send))
		delete(h.pending, key)
	}
	if h.events.Holds(key) {
		// Sent with the stream's next event, so that the held text (or
		// what it turns out to be) goes out in it, and every event once.
		h.pending[key] = pendingEvent{params, send}
		return out
	}
	if send == ev.Delta {
		return append(out, body)
	}
	return append(out, eventBody(params, send))
}

// pendingEvent is a message_update held back with the text it may send.
type pendingEvent struct {
	params json.RawMessage
	send   string
}

// eventBody is a harness/event notification of params (a message_update)
// with its delta replaced (a subagent_event's: its child's): the "delta"
// member's literal is spliced (an event carries one "delta" member at
// most, the child's in a subagent_event, which has none of its own), or,
// when the event has none (an empty delta is omitted), the event decoded
// and encoded again.
func eventBody(params json.RawMessage, delta string) []byte {
	if i := bytes.Index(params, []byte(`"delta":"`)); i >= 0 {
		start := i + len(`"delta":`)
		end := literalEnd(params, start)
		np := make([]byte, 0, len(params)+len(delta))
		np = append(np, params[:start]...)
		np = append(np, encodeRaw(delta)...)
		np = append(np, params[end:]...)
		return notification("harness/event", np)
	}
	var p map[string]json.RawMessage
	var ev map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["event"], &ev) != nil {
		return notification("harness/event", params)
	}
	var child map[string]json.RawMessage
	if json.Unmarshal(ev["child"], &child) == nil && child != nil {
		// subagent_event: the delta is the child's (the event has none).
		child["delta"] = encodeRaw(delta)
		ev["child"] = encodeRaw(child)
	} else {
		ev["delta"] = encodeRaw(delta)
	}
	p["event"] = encodeRaw(ev)
	return notification("harness/event", encodeRaw(p))
}

// literalEnd returns the index just past the JSON string literal that
// starts at b[i] (a '"').
func literalEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// appendOp is an "a" op on the encoded path.
func appendOp(path json.RawMessage, text string) json.RawMessage {
	return encodeRaw([]json.RawMessage{json.RawMessage(`"a"`), path, encodeRaw(text)})
}

// mergeNames reports whether the object of an "m" op sets key.
func mergeNames(value json.RawMessage, key any) bool {
	name, ok := key.(string)
	if !ok {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(value, &obj) != nil {
		return false
	}
	_, ok = obj[name]
	return ok
}

// isPrefix reports whether path a is a prefix of path b (or equal).
func isPrefix(a, b []any) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// encodeRaw encodes v without HTML escaping.
func encodeRaw(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, raw JSON and maps of them always encode
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
