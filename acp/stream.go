package acp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/pi-lsp/pi-lsp/tools"
)

// chunkTails holds back, per session and chunk kind, the end of the
// streamed text of agent_message_chunk and agent_thought_chunk lines that
// could be the beginning of a secret (tools.StreamTails), so that a secret
// the model streams across two chunks is masked whole. The held text goes
// out with the session's next chunk of that kind, or as a chunk line of its
// own just before the session's next other line (a tool call, a permission
// request, the other kind of chunk); a line that names no session (the
// answer to session/prompt) releases every session's. One connection owns
// one chunkTails, used under the egress lock.
type chunkTails struct {
	t *tools.StreamTails
}

func newChunkTails(r *tools.Redactor) *chunkTails {
	return &chunkTails{t: r.NewStreamTails()}
}

// chunkHead is the part of an outgoing line the hold looks at.
type chunkHead struct {
	Method string `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

// hold returns the lines to send for body, one valid JSON line without its
// newline: the held-back text body ends, as chunk lines, then body with its
// chunk text replaced by what may go now. Nothing is masked here but the
// chunk text; the egress masks every returned line.
func (c *chunkTails) hold(body []byte) [][]byte {
	if c.t.Len() == 0 && !bytes.Contains(body, []byte(`_chunk"`)) {
		return [][]byte{body}
	}
	var h chunkHead
	_ = json.Unmarshal(body, &h) // valid JSON; a different shape is simply no chunk
	kind := h.Params.Update.SessionUpdate
	sid := h.Params.SessionID
	chunk := h.Method == "session/update" && (kind == "agent_message_chunk" || kind == "agent_thought_chunk") &&
		h.Params.Update.Content.Type == "text" && h.Params.Update.Content.Text != nil
	var out [][]byte
	for _, key := range c.t.Keys() {
		ksid, kkind, _ := strings.Cut(key, "\n")
		if (sid != "" && ksid != sid) || (chunk && kkind == kind) {
			continue
		}
		if text := c.t.Flush(key); text != "" {
			out = append(out, chunkLine(ksid, kkind, text))
		}
	}
	if !chunk {
		return append(out, body)
	}
	send := c.t.Append(sid+"\n"+kind, *h.Params.Update.Content.Text)
	if send == "" {
		return out // all held: an empty chunk would be envelope only
	}
	return append(out, setChunkText(body, send))
}

// chunkLine is a session/update line of one chunk of text.
func chunkLine(sid, kind, text string) []byte {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type update struct {
		SessionUpdate string  `json:"sessionUpdate"`
		Content       content `json:"content"`
	}
	type params struct {
		SessionID string `json:"sessionId"`
		Update    update `json:"update"`
	}
	return encodeLine(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  params `json:"params"`
	}{"2.0", "session/update", params{sid, update{kind, content{"text", text}}}})
}

// setChunkText returns the chunk line body with its text replaced.
func setChunkText(body []byte, text string) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return body
	}
	p, _ := m["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	cm, _ := u["content"].(map[string]any)
	if cm == nil {
		return body
	}
	cm["text"] = text
	return encodeLine(m)
}

// encodeLine encodes v without HTML escaping and without the newline.
func encodeLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps and structs of strings always encode
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
