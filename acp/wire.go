package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pi-lsp/pi-lsp/tools"
)

// maxLine is the longest input line forwarded to the SDK (its scanner's
// limit); longer lines are answered with an error and skipped.
const maxLine = 10 << 20

// egress is the one writer every outgoing line goes through: it masks
// secrets in the decoded JSON string values of each line, as the native
// wire's egress does (tools.Redactor.RedactJSON; fs/write_text_file's
// content excepted: that is the user's file), and serializes writes of the
// SDK with the adapter's own error replies. Streamed text arrives already
// cut where no secret is split (each session's chunk buffer holds unsafe
// tails, chunks.go), so masking each line whole is enough.
//
// A line that cannot be masked is never written as it is: a response is
// replaced by an error response with its id, a request or notification is
// not sent and its Write fails (the SDK hands the error to the caller).
type egress struct {
	mu     sync.Mutex
	w      io.Writer
	redact *tools.Redactor
	// written, when set, sees each line after it went out.
	written func(line []byte)
}

// errEgress is a line the egress could not make safe: it was not sent.
var errEgress = errors.New("acp: an outgoing message could not be masked; it was not sent")

func newEgress(w io.Writer, r *tools.Redactor) *egress {
	return &egress{w: w, redact: r}
}

// Write takes one complete line (the SDK writes a message and its newline
// in one call) and writes it, masked.
func (e *egress) Write(p []byte) (int, error) {
	e.mu.Lock()
	lines, err := e.mask(p)
	var werr error
	for _, out := range lines {
		if _, werr = e.w.Write(out); werr != nil {
			break
		}
	}
	e.mu.Unlock()
	if werr != nil {
		return 0, werr
	}
	if err != nil {
		return 0, err
	}
	if e.written != nil {
		for _, out := range lines {
			e.written(out)
		}
	}
	return len(p), nil
}

// mask returns the lines to write for line: line with its secrets masked
// (one line; the error response that replaces it, when it is not JSON). It fails
// (errEgress, with at most an error response to write) when line is not
// JSON, which the SDK never writes: a bug then costs a message, never a
// secret.
func (e *egress) mask(line []byte) ([][]byte, error) {
	body := bytes.TrimRight(line, "\r\n")
	if !json.Valid(body) {
		if id, ok := tools.ResponseID(body); ok {
			return [][]byte{errorLine(id, -32603, "Internal error", map[string]any{
				"error": "the result could not be masked for display, so it was not sent: " + tools.ErrNotJSON.Error()})}, nil
		}
		return nil, fmt.Errorf("%w: %w", errEgress, tools.ErrNotJSON)
	}
	safe, err := e.redact.RedactJSON(body, tools.ExemptParams(body, "fs/write_text_file", true, "content"))
	if err != nil { // valid by construction
		return nil, fmt.Errorf("%w: %w", errEgress, err)
	}
	return [][]byte{append(safe[:len(safe):len(safe)], '\n')}, nil
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
