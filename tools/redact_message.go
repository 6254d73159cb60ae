package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The egress kit both front ends share (the native wire in rpc, ACP in
// acp): which values of an outgoing JSON-RPC message are exempt from
// masking, and what happens to a message that cannot be masked.

// ErrUnmaskable is an outgoing message that could not be masked: it was
// not sent.
var ErrUnmaskable = errors.New("an outgoing message could not be masked; it was not sent")

// JSONMasker masks secrets in one JSON document; *Redactor satisfies it.
type JSONMasker interface {
	RedactJSON(doc []byte, exempt func(path []string) bool) ([]byte, error)
}

// ExemptParams is the exemption of one message kind: in a body whose
// method is method (a request when request is true, which has an id; a
// notification otherwise), the string values under params.member, or all
// of params when member is "", are sent as they are. nil (mask everything)
// for any other body. A cheap byte check skips the decoding of every other
// message.
//
// Masking those values would corrupt data rather than hide it: the content
// of a file the editor is asked to write is the user's file.
func ExemptParams(body []byte, method string, request bool, member string) func(path []string) bool {
	if !bytes.Contains(body, []byte(`"`+method+`"`)) {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != method || (len(m.ID) > 0 && string(m.ID) != "null") != request {
		return nil
	}
	return func(path []string) bool {
		return len(path) >= 1 && path[0] == "params" && (member == "" || len(path) == 2 && path[1] == member)
	}
}

// MaskMessage masks the string values of one JSON-RPC message body, but
// those exempt keeps. When it cannot (the body is not JSON, which no
// encoder of ours writes) a response is answered instead with
// replace(id, reason) — an error response the front end shapes — and any
// other message is refused with ErrUnmaskable: a bug costs a message, never
// a secret. Raw bytes never go out.
func MaskMessage(m JSONMasker, body []byte, exempt func(path []string) bool, replace func(id json.RawMessage, reason string) ([]byte, error)) ([]byte, error) {
	safe, err := m.RedactJSON(body, exempt)
	if err == nil {
		return safe, nil
	}
	if id, ok := ResponseID(body); ok {
		return replace(id, "the result could not be masked for display, so it was not sent: "+err.Error())
	}
	return nil, fmt.Errorf("%w: %w", ErrUnmaskable, err)
}

// ResponseID reads the id of a response from the start of body, which need
// not be valid JSON past it (encoders write "jsonrpc" and "id" first). ok
// is false for a request or notification (a "method" before any result or
// error), or when no id can be read.
func ResponseID(body []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch k {
		case "id":
			if err := dec.Decode(&id); err != nil {
				return nil, false
			}
		case "method":
			return nil, false
		case "result", "error":
			return id, id != nil
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, false
			}
		}
	}
	return nil, false
}
