package rpctest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-lsp/pi-lsp/display"
)

// Display is the client's copy of the display state, rebuilt from the
// display/state frames exactly as an editor does. A frame whose version does
// not follow the last one is a gap: the copy is stale until Resync.
type Display struct {
	Version int64
	doc     any
	Frames  int   // display/state notifications received
	Bytes   int   // their framed size on the wire
	Gaps    int   // version gaps seen
	Stale   bool  // a gap or a bad frame: call Resync
	Err     error // the first frame that failed to apply

	resyncing bool              // a display/snapshot is in flight
	stash     []json.RawMessage // frames received meanwhile
}

// apply folds one display/state notification; the caller holds c.mu.
func (d *Display) apply(params json.RawMessage, size int) {
	d.Frames++
	d.Bytes += size
	if d.resyncing {
		d.stash = append(d.stash, params)
		return
	}
	d.fold(params)
}

func (d *Display) fold(params json.RawMessage) {
	var f struct {
		Version int64           `json:"version"`
		Ops     []display.Op    `json:"ops"`
		State   json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(params, &f); err != nil {
		d.fail(fmt.Errorf("rpctest: display/state params: %w", err))
		return
	}
	if f.State != nil {
		var doc any
		if err := json.Unmarshal(f.State, &doc); err != nil {
			d.fail(fmt.Errorf("rpctest: display/state state: %w", err))
			return
		}
		d.doc, d.Version, d.Stale = doc, f.Version, false
		return
	}
	switch {
	case f.Version <= d.Version:
		return // older than a snapshot already applied
	case d.Stale:
		return
	case f.Version != d.Version+1:
		d.Gaps++
		d.Stale = true
		return
	}
	doc, err := display.Patch(d.doc, f.Ops)
	if err != nil {
		d.fail(fmt.Errorf("rpctest: display/state version %d: %w", f.Version, err))
		return
	}
	d.doc, d.Version = doc, f.Version
}

func (d *Display) fail(err error) {
	if d.Err == nil {
		d.Err = err
	}
	d.Stale = true
}

// DisplayView is a copy of the client's display state.
type DisplayView struct {
	Version       int64
	State         display.State
	Frames, Bytes int
	Gaps          int
	Stale         bool
	Err           error
}

// Display returns the current display copy, decoded.
func (c *Client) Display() (DisplayView, error) {
	c.mu.Lock()
	d := c.display
	raw, err := json.Marshal(d.doc)
	c.mu.Unlock()
	v := DisplayView{Version: d.Version, Frames: d.Frames, Bytes: d.Bytes, Gaps: d.Gaps, Stale: d.Stale, Err: d.Err}
	if err != nil {
		return v, fmt.Errorf("rpctest: %w", err)
	}
	if d.doc != nil {
		if err := json.Unmarshal(raw, &v.State); err != nil {
			return v, fmt.Errorf("rpctest: decode display state: %w", err)
		}
	}
	return v, nil
}

// Resync asks display/snapshot and replaces the display copy with it, as a
// client does after a gap. Frames that arrive while the snapshot is in
// flight are kept and those newer than the snapshot applied after it: a
// frame may overtake the snapshot's response on the wire.
func (c *Client) Resync(ctx context.Context) error {
	c.mu.Lock()
	c.display.resyncing = true
	c.mu.Unlock()
	var snap struct {
		Version int64           `json:"version"`
		State   json.RawMessage `json:"state"`
	}
	err := c.Call(ctx, "display/snapshot", nil, &snap)
	var doc any
	if err == nil {
		if jerr := json.Unmarshal(snap.State, &doc); jerr != nil {
			err = fmt.Errorf("rpctest: snapshot state: %w", jerr)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := &c.display
	stash := d.stash
	d.resyncing, d.stash = false, nil
	if err == nil {
		d.doc, d.Version, d.Stale = doc, snap.Version, false
	}
	for _, p := range stash {
		d.fold(p)
	}
	c.broadcast()
	return err
}
