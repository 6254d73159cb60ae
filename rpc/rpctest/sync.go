package rpctest

import (
	"encoding/json"
	"fmt"

	"github.com/pi-lsp/pi-lsp/display"
)

// Sync is a client's hold on the display: the stream and version of the
// state it holds and whether that state is in sync. It implements the rules
// of docs/protocol.md, "Display streams", as every client does (the corpus
// in testdata/display-sync checks them all):
//
//   - a frame of another stream than the one held: a full state is taken
//     as the truth; ops mark the copy out of sync (ask display/snapshot);
//   - within one stream a frame not above the held version is stale, even a
//     full state; ops must follow the held version by one, else a gap;
//   - a snapshot answer of the held stream replaces the copy unless the copy
//     is in sync and newer; one of another stream replaces it only when the
//     held stream has not changed since the request was sent (otherwise the
//     answer predates what the client holds, and is dropped).
type Sync struct {
	Stream  string
	Version int64
	Doc     any
	Synced  bool
	Gaps    int   // version gaps and new streams seen in ops frames
	Err     error // the first frame that failed to apply
}

// SyncFrame is a display/state frame as Sync reads it.
type SyncFrame struct {
	Stream  string          `json:"stream"`
	Version int64           `json:"version"`
	Ops     []display.Op    `json:"ops"`
	State   json.RawMessage `json:"state"`
}

// SyncSnapshot is a display/snapshot answer as Sync reads it.
type SyncSnapshot struct {
	Stream  string          `json:"stream"`
	Version int64           `json:"version"`
	State   json.RawMessage `json:"state"`
}

// Frame folds one display/state frame.
func (s *Sync) Frame(f SyncFrame) {
	if s.Stream != "" && f.Stream != "" && f.Stream != s.Stream {
		s.Stream = f.Stream
		if f.State == nil {
			// A new stream: what is held is discarded; the next full state
			// or snapshot is the truth.
			s.Synced = false
			s.Gaps++
			return
		}
		s.Version = 0
	}
	if s.Stream == "" {
		s.Stream = f.Stream
	}
	if f.Version <= s.Version {
		return // older than what is held
	}
	if f.State != nil {
		var doc any
		if err := json.Unmarshal(f.State, &doc); err != nil {
			s.fail(fmt.Errorf("rpctest: display/state state: %w", err))
			return
		}
		s.Doc, s.Version, s.Synced = doc, f.Version, true
		return
	}
	if !s.Synced {
		return
	}
	if f.Version != s.Version+1 {
		s.Gaps++
		s.Synced = false
		return
	}
	doc, err := display.Patch(s.Doc, f.Ops)
	if err != nil {
		s.fail(fmt.Errorf("rpctest: display/state version %d: %w", f.Version, err))
		return
	}
	s.Doc, s.Version = doc, f.Version
}

// Snapshot folds a display/snapshot answer to a request sent while the
// client held stream asked; false when it was dropped as older than what
// is held.
func (s *Sync) Snapshot(snap SyncSnapshot, asked string) bool {
	if snap.Stream != "" && s.Stream != "" && snap.Stream != s.Stream {
		if s.Stream != asked {
			return false // the stream changed while the request was in flight
		}
	} else if s.Synced && snap.Version < s.Version {
		return false
	}
	var doc any
	if err := json.Unmarshal(snap.State, &doc); err != nil {
		s.fail(fmt.Errorf("rpctest: snapshot state: %w", err))
		return false
	}
	s.Stream, s.Version, s.Doc, s.Synced = snap.Stream, snap.Version, doc, true
	return true
}

func (s *Sync) fail(err error) {
	if s.Err == nil {
		s.Err = err
	}
	s.Synced = false
}
