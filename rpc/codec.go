package rpc

import (
	"bytes"
	"encoding/json"
)

// jsonCodec marshals params and results with encoding/json (v1) instead of
// jsonrpc2's default json/v2 codec: pi-lsp's types are written for v1 (nil
// slices as null, omitempty, their MarshalJSON methods), and the tests and
// clients expect exactly what v1 writes. HTML characters are not escaped, so
// code in display text costs its own bytes on the wire.
type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (jsonCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
