package acp

import (
	"bytes"
	"encoding/json"
	"sync"
)

// seqKey is the _meta key the input filter stamps on session/prompt params
// with the prompt's place in the wire order.
const seqKey = "pi-lsp/seq"

// wireOrder keeps what the SDK's concurrent dispatch loses: whether a
// session/cancel came after a prompt on the wire. A prompt sent before a
// cancel is cancelled even if its handler runs after the cancel's.
type wireOrder struct {
	mu        sync.Mutex
	seq       uint64
	cancelled map[string]uint64 // session id -> seq of its last cancel
}

func newWireOrder() *wireOrder { return &wireOrder{cancelled: map[string]uint64{}} }

// observe stamps prompts and records cancels; other lines pass unchanged.
func (o *wireOrder) observe(line []byte) []byte {
	isPrompt := bytes.Contains(line, []byte(`"session/prompt"`))
	if !isPrompt && !bytes.Contains(line, []byte(`"session/cancel"`)) {
		return line
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	var method string
	_ = json.Unmarshal(m["method"], &method)
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return line
	}
	var sid string
	_ = json.Unmarshal(params["sessionId"], &sid)
	o.mu.Lock()
	o.seq++
	seq := o.seq
	if method == "session/cancel" {
		o.cancelled[sid] = seq
	}
	o.mu.Unlock()
	if method != "session/prompt" {
		return line
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok {
		if json.Unmarshal(raw, &meta) != nil {
			return line
		}
	}
	if meta == nil { // "_meta": null
		meta = map[string]json.RawMessage{}
	}
	meta[seqKey], _ = json.Marshal(seq)
	params["_meta"], _ = json.Marshal(meta)
	m["params"], _ = json.Marshal(params)
	out, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// cancelledAfter reports whether a cancel of sid came after the prompt
// stamped seq (0: not stamped, never).
func (o *wireOrder) cancelledAfter(sid string, seq uint64) bool {
	if seq == 0 {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cancelled[sid] > seq
}

// promptSeq takes the stamp out of a prompt's _meta.
func promptSeq(meta map[string]any) uint64 {
	v, ok := meta[seqKey]
	if !ok {
		return 0
	}
	delete(meta, seqKey)
	if f, ok := v.(float64); ok && f > 0 {
		return uint64(f)
	}
	return 0
}
