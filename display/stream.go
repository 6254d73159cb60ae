package display

import (
	"crypto/rand"
	"encoding/hex"
)

// NewStreamID returns a fresh display stream id (protocol.DisplayFrame.Stream):
// 8 random hex digits (20 bytes a frame on the wire), so two server processes, or two connections of one,
// practically never share a stream whose versions a client could mistake
// for its own (a client compares only the stream it holds with the next).
func NewStreamID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}
