package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// FuzzFrameReader feeds arbitrary bytes, followed by one well-formed frame,
// to the frame reader: it must never panic or loop, never return a body
// over the limit, and end with EOF. When the garbage holds no
// "Content-Length" and ends with a newline, the frame after it must
// survive: one bad frame never costs the next.
func FuzzFrameReader(f *testing.F) {
	for _, s := range []string{
		"",
		frame(`{"jsonrpc":"2.0","id":1,"method":"x"}`),
		"Content-Length: abc\r\n\r\n{}",
		"content-length: 2\r\nContent-Type: application/json\r\n\r\n{}",
		"\r\n\r\nContent-Length: 2\n\n{}",
		"garbage\r\n" + frame("{}"),
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 10\r\n\r\nshort",
		"Content-Len",
		`{"no":"header"}Content-Length: 2` + "\r\n\r\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 1 << 10
		const tail = `{"tail":true}`
		fr := newFrameReader(bytes.NewReader(append(data, frame(tail)...)), max)
		sawTail := false
		for i := 0; ; i++ {
			if i > len(data)+10 {
				t.Fatalf("no progress after %d frames", i)
			}
			body, err := fr.Next()
			var fe *frameError
			switch {
			case errors.As(err, &fe):
				if fe.code != CodeParseError && fe.code != CodeInvalidRequest {
					t.Fatalf("frame error code %d", fe.code)
				}
				continue
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				clean := indexFold(data, []byte(contentLength)) < 0 && (len(data) == 0 || data[len(data)-1] == '\n')
				if clean && !sawTail {
					t.Fatalf("the frame after %q was lost", data)
				}
				return
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if len(body) > max {
				t.Fatalf("body of %d bytes over the %d limit", len(body), max)
			}
			if string(body) == tail {
				sawTail = true
			}
		}
	})
}

// FuzzFrameReaderRoundTrip: well-formed frames always come back intact.
func FuzzFrameReaderRoundTrip(f *testing.F) {
	f.Add("a", "bc", "")
	f.Add(`{"x":1}`, "\r\n", "Content-Length: 5")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var in bytes.Buffer
		var want []string
		for _, s := range []string{a, b, c} {
			if s == "" {
				continue // a zero-length body is valid framing; skip to keep the check simple
			}
			in.WriteString(frame(s))
			want = append(want, s)
		}
		fr := newFrameReader(&in, 1<<20)
		for _, w := range want {
			body, err := fr.Next()
			if err != nil || string(body) != w {
				t.Fatalf("got %q, %v; want %q", body, err, w)
			}
		}
		if _, err := fr.Next(); err != io.EOF {
			t.Fatalf("after the frames: %v, want EOF", err)
		}
	})
}

// FuzzDecodeMessage feeds arbitrary bodies to the request decoder: a body
// that is not JSON is a parse error, JSON that is not a message an invalid
// request, and a decoded message is a call, notification or response.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/state"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`42`, `"s"`, `null`, `{`, ``, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, derr := decodeMessage(body)
		if derr != nil {
			if msg != nil {
				t.Fatalf("both a message and an error")
			}
			if !json.Valid(body) && derr.code != CodeParseError {
				t.Fatalf("invalid JSON answered %d", derr.code)
			}
			if json.Valid(body) && derr.code != CodeInvalidRequest {
				t.Fatalf("valid JSON answered %d: %s", derr.code, derr.msg)
			}
			if derr.msg == "" {
				t.Fatalf("empty error message")
			}
			return
		}
		switch m := msg.(type) {
		case *jsonrpc2.Call, *jsonrpc2.Notification, *jsonrpc2.Response:
		default:
			t.Fatalf("decoded %T", m)
		}
	})
}
