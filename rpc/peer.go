package rpc

import (
	"context"
	"io"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
)

// Stream is a jsonrpc2.Stream over LSP base framing, for an upper layer
// that runs its own jsonrpc2.Conn (a process attached to another's
// session): the same reader, decoder and serialized, masked writer as
// Serve's connections.
type Stream struct{ *stream }

// NewStream frames messages on r and w; maxFrame 0 is DefaultMaxFrame. m
// masks what is written (nil: nothing is masked, for a peer that masks
// what it sends on).
func NewStream(r io.Reader, w io.Writer, maxFrame int, m Masker, log *slog.Logger) Stream {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	if m == nil {
		m = noMask{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Stream{newStream(r, w, maxFrame, m, log, nil)}
}

// Ended is closed when the input ends.
func (s Stream) Ended() <-chan struct{} { return s.ended }

// Broken is closed when a write fails.
func (s Stream) Broken() <-chan struct{} { return s.broken }

// Codec is the jsonrpc2 option every pi-lsp connection uses.
func Codec() jsonrpc2.Option { return jsonrpc2.WithCodec(jsonCodec{}) }

// noMask passes messages as they are.
type noMask struct{}

func (noMask) RedactJSON(doc []byte, _ func([]string) bool) ([]byte, error) { return doc, nil }

// ReadFrame reads one frame's body from r (a handshake before a stream
// takes r over; pass a *bufio.Reader of at least 64 KiB so nothing is read
// ahead and lost).
func ReadFrame(r io.Reader, maxFrame int) ([]byte, error) {
	return newFrameReader(r, maxFrame).Next()
}

// ToWire is the JSON-RPC error a handler's error is answered with.
func ToWire(err error) *jsonrpc2.Error { return toWire(err) }

// FromWire turns an error a peer answered into an *Error (Data is the raw
// json.RawMessage); other errors are returned as they are.
func FromWire(err error) error { return fromWire(err) }

// Server returns the server c is connected to.
func (c *Client) Server() *Server { return c.srv }

// Logger is the server's log.
func (s *Server) Logger() *slog.Logger { return s.log }

// MaxFrame is the largest message body the server accepts.
func (s *Server) MaxFrame() int { return s.opts.MaxFrame }

// Masker is the server's egress masker (never nil after NewServer): an
// upper layer that holds streamed text back asks it what could start a
// secret.
func (s *Server) Masker() Masker { return s.opts.Masker }

// IDValue is a JSON-RPC id as a JSON value (a number or a string).
func IDValue(id jsonrpc2.ID) any { return idValue(id) }

// CancelParams are the params of $/cancelRequest.
type CancelParams = cancelParams

// MergeCancel returns a context cancelled when either a or b is.
func MergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	return mergeCancel(a, b)
}

// Declared reports whether method is a server→client request that needs a
// capability (known) and whether caps declares it (ok).
func Declared(caps ClientCapabilities, method string) (known, ok bool) {
	return capability(caps, method)
}
