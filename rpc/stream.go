package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// stream is the jsonrpc2.Stream of one connection. Reads go through our
// frameReader and request decoder, which answer bad input themselves and
// read on; writes go through egress (the secret mask) and are framed under
// one lock, so the stream is the one serialized writer of the connection.
type stream struct {
	in     *frameReader
	mask   Masker
	wmu    sync.Mutex // one frame at a time
	wbuf   []byte     // header and body of the frame being written, under wmu
	r      io.Reader
	w      io.Writer
	onBad  func(code int, msg string)
	log    *slog.Logger
	ended  chan struct{} // closed when input ends (EOF or read error)
	endErr error
	broken chan struct{} // closed when a write fails
	once   sync.Once
	bonce  sync.Once
	cmu    sync.Mutex
	closed bool
}

func newStream(r io.Reader, w io.Writer, maxFrame int, mask Masker, log *slog.Logger, onBad func(code int, msg string)) *stream {
	return &stream{
		in:     newFrameReader(r, maxFrame),
		mask:   mask,
		r:      r,
		w:      w,
		onBad:  onBad,
		log:    log,
		ended:  make(chan struct{}),
		broken: make(chan struct{}),
	}
}

// Read returns the next well-formed message, answering bad ones.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := s.in.Next()
		if err != nil {
			var fe *frameError
			if errors.As(err, &fe) {
				s.reject(jsonrpc2.ID{}, fe.code, fe.msg)
				continue
			}
			s.end(err)
			return nil, 0, err
		}
		msg, derr := decodeMessage(body)
		if derr != nil {
			if derr.reply {
				s.reject(derr.id, derr.code, derr.msg)
			} else if s.onBad != nil {
				s.onBad(derr.code, derr.msg)
			}
			continue
		}
		return msg, int64(len(body)), nil
	}
}

func (s *stream) reject(id jsonrpc2.ID, code int, msg string) {
	if s.onBad != nil {
		s.onBad(code, msg)
	}
	_, _ = s.Write(context.Background(), jsonrpc2.NewResponse(id, nil, &jsonrpc2.Error{Code: jsonrpc2.Code(code), Message: msg}))
}

func (s *stream) end(err error) {
	s.once.Do(func() {
		s.endErr = err
		close(s.ended)
	})
}

// Write is encode → mask (egress) → frame: one LSP-framed write. Streamed
// text arrives already cut where no secret is split (the display
// scheduler and the outbox hold unsafe tails, per item and per stream), so
// masking each message whole is enough. A failed write marks the stream
// broken; a message egress refuses is not written and does not break the
// stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	body, err := egress(s.mask, msg)
	if err != nil {
		// Not sent. An error here would make the connection treat its
		// writer as broken, so the message is dropped and logged instead.
		s.log.Error("outgoing message dropped", "err", err)
		return 0, nil
	}
	s.wbuf = append(s.wbuf[:0], "Content-Length: "...)
	s.wbuf = strconv.AppendInt(s.wbuf, int64(len(body)), 10)
	s.wbuf = append(s.wbuf, "\r\n\r\n"...)
	s.wbuf = append(s.wbuf, body...)
	n, err := s.w.Write(s.wbuf)
	if len(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not keep a large frame's buffer
	}
	if err != nil && ctx.Err() == nil {
		s.bonce.Do(func() { close(s.broken) })
	}
	return int64(n), err
}

// Close closes the reader and the writer when they can be closed.
func (s *stream) Close() error {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if c, ok := s.r.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.w.(io.Closer); ok && any(s.w) != any(s.r) {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// decodeError is a frame body that is not a usable JSON-RPC message.
type decodeError struct {
	code  int
	msg   string
	id    jsonrpc2.ID // the request's id when it could be read, else null
	reply bool        // false for a malformed response: nobody to answer
}

// decodeMessage decodes one frame body into a call, notification or
// response. A body that is not JSON is a parse error; JSON that is not a
// JSON-RPC 2.0 message is an invalid request, answered with its id when the
// id is readable.
func decodeMessage(body []byte) (jsonrpc2.Message, *decodeError) {
	msg, err := jsonrpc2.DecodeMessage(body)
	if err == nil {
		if _, isNote := msg.(*jsonrpc2.Notification); isNote && nullID(body) {
			// "id": null is not a notification: the request cannot be
			// answered by id, so it gets the invalid-request error with id
			// null (JSON-RPC 2.0 §5).
			return nil, &decodeError{code: CodeInvalidRequest, msg: `invalid request: "id" must be a string or an integer, got null`, reply: true}
		}
		return msg, nil
	}
	var v any
	if !json.Valid(body) {
		msg := "parse error: the message body is not valid JSON"
		if jerr := json.Unmarshal(body, &v); jerr != nil {
			msg += ": " + jerr.Error()
		}
		return nil, &decodeError{code: CodeParseError, msg: msg, reply: true}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // ids beyond float64 are still numbers
	if jerr := dec.Decode(&v); jerr != nil {
		return nil, &decodeError{code: CodeParseError, msg: "parse error: " + jerr.Error(), reply: true}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		what := "a JSON " + jsonKind(v)
		if _, isArray := v.([]any); isArray {
			what = "a batch (JSON array); batches are not supported"
		}
		return nil, &decodeError{code: CodeInvalidRequest, msg: "invalid request: expected a JSON-RPC 2.0 request object, got " + what, reply: true}
	}
	de := &decodeError{code: CodeInvalidRequest, reply: true}
	idOK := true
	switch id := obj["id"].(type) {
	case string:
		de.id = jsonrpc2.NewStringID(id)
	case json.Number:
		if n, err := id.Int64(); err == nil {
			de.id = jsonrpc2.NewNumberID(n)
		} else {
			idOK = false
		}
	case nil:
	default:
		idOK = false
	}
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	switch {
	case obj["jsonrpc"] != "2.0":
		de.msg = fmt.Sprintf(`invalid request: "jsonrpc" must be "2.0", got %s`, compact(obj["jsonrpc"]))
	case hasMethod && (hasResult || hasError):
		de.msg = "invalid request: a message has either a method or a result/error, not both"
	case !hasMethod && (hasResult || hasError):
		de.msg = "invalid response: " + compact(obj["id"]) + " is not a valid id"
		de.reply = false
	case !hasMethod:
		de.msg = `invalid request: no "method"`
	case !idOK:
		de.msg = `invalid request: "id" must be a string or an integer, got ` + compact(obj["id"])
	default:
		if _, ok := obj["method"].(string); !ok {
			de.msg = `invalid request: "method" must be a string, got ` + compact(obj["method"])
		} else {
			de.msg = "invalid request: " + err.Error()
		}
	}
	return nil, de
}

// nullID reports whether the message object has an "id" member that is
// null. Only notifications are checked, and only when the body names an id.
func nullID(body []byte) bool {
	if !bytes.Contains(body, []byte(`"id"`)) {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	id, ok := top["id"]
	return ok && string(bytes.TrimSpace(id)) == "null"
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func compact(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	return clip(b)
}
