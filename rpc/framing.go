package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame is the largest message body accepted: 16 MiB.
const DefaultMaxFrame = 16 << 20

const (
	maxHeaderLine = 8 << 10 // a longer header line is malformed
	maxDeclared   = 1 << 40 // a larger Content-Length is a corrupt header, not a message
)

const contentLength = "content-length"

// frameError is a bad frame the reader has recovered from: the server
// answers it (id null) and reads on.
type frameError struct {
	code int
	msg  string
}

func (e *frameError) Error() string { return e.msg }

// frameReader reads LSP base-protocol frames. It is hand-written rather than
// jsonrpc2's header stream because that one ends the connection on the first
// bad header or undecodable body and caps frames at 1 GiB; this one enforces
// MaxFrame (skipping an oversized body), and after a malformed header it
// resynchronises on the next "Content-Length" header, so one bad frame costs
// one error response, never the connection.
type frameReader struct {
	r      *bufio.Reader
	max    int
	first  []byte // a header line found while recovering, to parse next
	resync bool   // the input is not at a frame boundary: scan for a header
}

func newFrameReader(r io.Reader, max int) *frameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the body of the next frame. Errors are *frameError (answer
// and call Next again), io.EOF (input closed between frames) or another
// read error (io.ErrUnexpectedEOF when input ends inside a frame).
func (f *frameReader) Next() ([]byte, error) {
	if f.resync {
		f.resync = false
		line, err := f.scanForHeader()
		if err != nil {
			return nil, err
		}
		f.first = line
	}
	n, err := f.readHeader()
	if err != nil {
		return nil, err
	}
	if n > f.max {
		if _, err := io.CopyN(io.Discard, f.r, int64(n)); err != nil {
			return nil, unexpected(err)
		}
		return nil, &frameError{CodeInvalidRequest, fmt.Sprintf(
			"message too large: Content-Length %d exceeds the limit of %d bytes; it was skipped", n, f.max)}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(f.r, body); err != nil {
		return nil, unexpected(err)
	}
	return body, nil
}

// readHeader parses one header block and returns its Content-Length.
func (f *frameReader) readHeader() (int, error) {
	length, fields := -1, 0
	var bad string
	for {
		line := f.first
		f.first = nil
		if line == nil {
			var err error
			line, err = f.readLine()
			if errors.Is(err, errLineTooLong) {
				f.resync = true
				return 0, &frameError{CodeParseError, "malformed header: a header line is longer than 8 KiB"}
			}
			if err != nil {
				if err == io.EOF && (fields > 0 || bad != "") {
					err = io.ErrUnexpectedEOF
				}
				return 0, err
			}
		}
		field := bytes.TrimRight(line, "\r\n")
		if len(field) == 0 {
			if fields == 0 && bad == "" {
				continue // stray blank lines between frames
			}
			break
		}
		fields++
		name, value, ok := bytes.Cut(field, []byte(":"))
		if !ok || !isToken(name) {
			// Garbage, maybe with a real header glued after it (a body
			// shorter than its Content-Length, say): restart there.
			if k := indexFold(line[1:], []byte(contentLength)); k >= 0 {
				f.first = append([]byte(nil), line[k+1:]...)
			} else {
				f.resync = true
			}
			return 0, &frameError{CodeParseError, fmt.Sprintf("malformed header line %q: expected \"Name: value\"", clip(field))}
		}
		if !bytes.EqualFold(name, []byte(contentLength)) {
			continue // Content-Type and unknown fields are ignored
		}
		n, ok := parseLength(bytes.TrimSpace(value))
		if !ok {
			bad = fmt.Sprintf("invalid Content-Length %q", clip(bytes.TrimSpace(value)))
			continue
		}
		length = n
	}
	if bad == "" && length < 0 {
		bad = "missing Content-Length header"
	}
	if bad != "" {
		// The body that follows has no known length: skip to the next header.
		f.resync = true
		return 0, &frameError{CodeParseError, "malformed header: " + bad}
	}
	return length, nil
}

var errLineTooLong = errors.New("header line too long")

// readLine reads one line including its "\n".
func (f *frameReader) readLine() ([]byte, error) {
	line, err := f.r.ReadSlice('\n')
	switch {
	case err == nil:
		if len(line) > maxHeaderLine {
			return nil, errLineTooLong
		}
		return line, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, errLineTooLong
	case err == io.EOF && len(line) > 0:
		return nil, io.ErrUnexpectedEOF
	}
	return nil, err
}

// scanForHeader discards input up to the next "Content-Length" (any case)
// and returns the header line that starts there.
func (f *frameReader) scanForHeader() ([]byte, error) {
	var carry []byte // the end of the last chunk, in case the name is split
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(chunk) > 0 {
			buf := append(carry, chunk...)
			if k := indexFold(buf, []byte(contentLength)); k >= 0 {
				line := append([]byte(nil), buf[k:]...)
				for errors.Is(err, bufio.ErrBufferFull) && len(line) <= maxHeaderLine {
					chunk, err = f.r.ReadSlice('\n')
					line = append(line, chunk...)
				}
				if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
					return nil, unexpected(err)
				}
				return line, nil
			}
			carry = nil
			if errors.Is(err, bufio.ErrBufferFull) {
				carry = append(carry, buf[max(0, len(buf)-len(contentLength)+1):]...)
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				return nil, io.EOF // nothing but garbage before the end
			}
			return nil, err
		}
	}
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func parseLength(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 13 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= maxDeclared
}

// isToken reports whether b is an RFC 7230 header field name.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
}

// indexFold is bytes.Index ignoring ASCII case; needle is lower case.
func indexFold(s, needle []byte) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
