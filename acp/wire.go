package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/tools"
)

// maxLine is the longest input line forwarded to the SDK (its scanner's
// limit); longer lines are answered with an error and skipped.
const maxLine = 10 << 20

// egress is the one writer every outgoing line goes through: it masks
// secrets in the decoded JSON strings of each line (fs/write_text_file's
// content excepted: that is the user's file) and serializes writes of the
// SDK with the adapter's own error replies.
type egress struct {
	mu     sync.Mutex
	w      io.Writer
	redact *tools.Redactor
	// written, when set, sees each line after it went out.
	written func(line []byte)
}

func newEgress(w io.Writer, r *tools.Redactor) *egress { return &egress{w: w, redact: r} }

// Write takes one complete line (the SDK writes a message and its newline
// in one call) and writes it, masked.
func (e *egress) Write(p []byte) (int, error) {
	out := e.mask(p)
	e.mu.Lock()
	_, err := e.w.Write(out)
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if e.written != nil {
		e.written(out)
	}
	return len(p), nil
}

// mask returns line with secrets masked. A line in which the redactor finds
// nothing and that holds no \u escape (which could spell a secret the raw
// text hides) is passed through as it is.
func (e *egress) mask(line []byte) []byte {
	if e.redact == nil {
		return line
	}
	raw := string(line)
	if !strings.Contains(raw, `\u`) && e.redact.Redact(raw) == raw {
		return line
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		// Not JSON (never written by the SDK): mask the text itself.
		return []byte(e.redact.Redact(raw))
	}
	// fs/write_text_file's content is the user's file: written as it is.
	var params map[string]any
	exempt, hasExempt := "", false
	if m, ok := v.(map[string]any); ok && m["method"] == "fs/write_text_file" {
		if p, ok := m["params"].(map[string]any); ok {
			if c, ok := p["content"].(string); ok {
				params, exempt, hasExempt = p, c, true
				delete(p, "content")
			}
		}
	}
	v = e.walk(v)
	if hasExempt {
		params["content"] = exempt
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(e.redact.Redact(raw))
	}
	return buf.Bytes() // Encode ends with the newline
}

func (e *egress) walk(v any) any {
	switch x := v.(type) {
	case string:
		return e.redact.Redact(x)
	case []any:
		for i := range x {
			x[i] = e.walk(x[i])
		}
	case map[string]any:
		for k, val := range x {
			x[k] = e.walk(val)
		}
	}
	return v
}

// errorLine is a JSON-RPC error response with a null id (or id).
func errorLine(id json.RawMessage, code int, msg string, data any) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": msg, "data": data}})
	return append(b, '\n')
}

// filterInput copies protocol lines from in to out and answers the lines
// the SDK would only log and drop: a line that is not JSON gets -32700, one
// that is not a JSON-RPC message object (a batch, a scalar, no method and
// no id) -32600, a line over maxLine -32600. It returns when in ends.
//
// observe (when non-nil) sees every forwarded line first and may return a
// replacement: the agent uses it to keep the wire order of prompts and
// cancels, which the SDK dispatches concurrently.
func filterInput(in io.Reader, out io.Writer, reply io.Writer, observe func([]byte) []byte) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			tooLong = true
			line = line[:0]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			tooLong = false
			if _, werr := reply.Write(errorLine(nil, -32600, "Invalid request", map[string]any{"error": fmt.Sprintf("line longer than %d bytes", maxLine)})); werr != nil {
				return werr
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if fwd, bad := checkLine(line); bad != nil {
				if _, werr := reply.Write(bad); werr != nil {
					return werr
				}
			} else {
				if observe != nil {
					fwd = observe(fwd)
				}
				if _, werr := out.Write(fwd); werr != nil {
					return werr
				}
			}
		}
		line = line[:0]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// checkLine returns the line to forward (newline-terminated) or the error
// reply for it.
func checkLine(line []byte) (fwd, bad []byte) {
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		return nil, errorLine(nil, -32700, "Parse error", map[string]any{"error": "the line is not valid JSON"})
	}
	if trimmed[0] != '{' {
		return nil, errorLine(nil, -32600, "Invalid request", map[string]any{"error": "a message must be a JSON object (batches are not supported)"})
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return nil, errorLine(nil, -32600, "Invalid request", map[string]any{"error": err.Error()})
	}
	id := m.ID
	if len(id) > 0 && id[0] != '"' && id[0] != 'n' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		return nil, errorLine(nil, -32600, "Invalid request", map[string]any{"error": "id must be a string, a number or null"})
	}
	if m.JSONRPC == nil || *m.JSONRPC != "2.0" {
		return nil, errorLine(id, -32600, "Invalid request", map[string]any{"error": `"jsonrpc" must be "2.0"`})
	}
	if len(m.Method) == 0 && len(id) == 0 {
		return nil, errorLine(nil, -32600, "Invalid request", map[string]any{"error": "a message needs a method or an id"})
	}
	if len(m.Method) > 0 && m.Method[0] != '"' {
		return nil, errorLine(id, -32600, "Invalid request", map[string]any{"error": "method must be a string"})
	}
	return append(append([]byte(nil), trimmed...), '\n'), nil
}
