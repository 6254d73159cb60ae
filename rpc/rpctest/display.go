package rpctest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-lsp/pi-lsp/display"
)

// Display is the client's copy of the display state, rebuilt from the
// display/state frames exactly as an editor does (Sync). A frame whose
// version does not follow the last one, or ops of a new stream, leave the
// copy stale until Resync.
type Display struct {
	Sync
	Frames int // display/state notifications received
	Bytes  int // their framed size on the wire

	resyncing bool              // a display/snapshot is in flight
	asked     string            // the stream held when it was asked
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
	var f SyncFrame
	if err := json.Unmarshal(params, &f); err != nil {
		d.fail(fmt.Errorf("rpctest: display/state params: %w", err))
		return
	}
	d.Frame(f)
}

// DisplayView is a copy of the client's display state.
type DisplayView struct {
	Stream        string
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
	raw, err := json.Marshal(d.Doc)
	c.mu.Unlock()
	v := DisplayView{Stream: d.Stream, Version: d.Version, Frames: d.Frames, Bytes: d.Bytes, Gaps: d.Gaps, Stale: !d.Synced, Err: d.Err}
	if err != nil {
		return v, fmt.Errorf("rpctest: %w", err)
	}
	if d.Doc != nil {
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
	c.display.asked = c.display.Stream
	c.mu.Unlock()
	var snap SyncSnapshot
	err := c.Call(ctx, "display/snapshot", nil, &snap)
	c.mu.Lock()
	defer c.mu.Unlock()
	d := &c.display
	stash := d.stash
	d.resyncing, d.stash = false, nil
	if err == nil {
		d.Snapshot(snap, d.asked)
		if d.Err != nil {
			err = d.Err
		}
	}
	for _, p := range stash {
		d.fold(p)
	}
	c.broadcast()
	return err
}
