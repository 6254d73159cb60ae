package server

import (
	"context"
	"encoding/json"
	"sync"
)

// noteQueue holds the owner's notifications for the editor, in order,
// without blocking the upstream's read loop. It is bounded the way
// eventQueue is for harness/event: once coalesceAt notes are queued (the
// editor reads slower than the owner streams),
//   - a harness/event message_update is merged into the queued one before
//     it when both stream the same content (the merged event carries the
//     seq of its last delta);
//   - display/state frames are dropped, and the writer sends the owner's
//     display/snapshot in their place as one full-state frame (frames the
//     owner sent before it are then dropped too);
//   - every other notification (agent_end, errors, progress, ui/resolved,
//     session/owner …) is kept.
type noteQueue struct {
	mu         sync.Mutex
	notes      []note
	coalesceAt int
	resync     bool  // display frames were dropped: send a snapshot
	floor      int64 // display frames at or below this version are older than the last snapshot sent
	wake       chan struct{}
}

type note struct {
	method string
	params json.RawMessage
	merged *mergedDelta // a message_update with deltas merged into it
}

// mergedDelta is a message_update event being merged: its fields as
// received, and the deltas so far.
type mergedDelta struct {
	event map[string]json.RawMessage
	delta []byte
	seq   json.RawMessage
}

// streamedDelta is what identifies a mergeable message_update.
type streamedDelta struct {
	Type         string `json:"type"`
	DeltaKind    string `json:"deltaKind"`
	ContentIndex int    `json:"contentIndex"`
	Delta        string `json:"delta"`
}

func newNoteQueue(coalesceAt int) *noteQueue {
	return &noteQueue{coalesceAt: coalesceAt, wake: make(chan struct{}, 1)}
}

func (q *noteQueue) add(method string, params json.RawMessage) {
	q.mu.Lock()
	switch {
	case method == "display/state" && (q.resync || q.floor > 0 && frameVersion(params) <= q.floor):
		// The snapshot to come (or sent) holds it.
	case method == "display/state" && len(q.notes) >= q.coalesceAt:
		kept := q.notes[:0]
		for _, n := range q.notes {
			if n.method != "display/state" {
				kept = append(kept, n)
			}
		}
		q.notes = kept
		q.resync = true
	case method == "harness/event" && len(q.notes) >= q.coalesceAt && q.merge(params):
	default:
		q.notes = append(q.notes, note{method: method, params: params})
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// merge merges the message_update params into the last queued note when
// both stream the same content. The caller holds mu.
func (q *noteQueue) merge(params json.RawMessage) bool {
	if len(q.notes) == 0 {
		return false
	}
	last := &q.notes[len(q.notes)-1]
	if last.method != "harness/event" {
		return false
	}
	ev, d, ok := deltaOf(params)
	if !ok {
		return false
	}
	if last.merged == nil {
		lev, ld, ok := deltaOf(last.params)
		if !ok || ld.DeltaKind != d.DeltaKind || ld.ContentIndex != d.ContentIndex {
			return false
		}
		last.merged = &mergedDelta{event: lev, delta: []byte(ld.Delta), seq: lev["seq"]}
	} else if k, ci := last.merged.kind(); k != d.DeltaKind || ci != d.ContentIndex {
		return false
	}
	last.merged.delta = append(last.merged.delta, d.Delta...)
	last.merged.seq = ev["seq"]
	return true
}

func (m *mergedDelta) kind() (string, int) {
	var d streamedDelta
	_ = json.Unmarshal(m.event["deltaKind"], &d.DeltaKind)
	_ = json.Unmarshal(m.event["contentIndex"], &d.ContentIndex)
	return d.DeltaKind, d.ContentIndex
}

// deltaOf decodes a harness/event's params when the event is a
// message_update.
func deltaOf(params json.RawMessage) (map[string]json.RawMessage, streamedDelta, bool) {
	var p struct {
		Event map[string]json.RawMessage `json:"event"`
	}
	var d streamedDelta
	if json.Unmarshal(params, &p) != nil || p.Event == nil {
		return nil, d, false
	}
	raw, _ := json.Marshal(p.Event)
	if json.Unmarshal(raw, &d) != nil || d.Type != "message_update" {
		return nil, d, false
	}
	return p.Event, d, true
}

// settle writes the merged deltas into their notes. The caller holds mu.
func (q *noteQueue) settle() {
	for i := range q.notes {
		m := q.notes[i].merged
		if m == nil {
			continue
		}
		m.event["delta"], _ = json.Marshal(string(m.delta))
		if m.seq != nil {
			m.event["seq"] = m.seq
		}
		q.notes[i].params, _ = json.Marshal(map[string]any{"event": m.event})
		q.notes[i].merged = nil
	}
}

// setFloor drops the display frames at or below version from now on: a
// snapshot of that version was sent.
func (q *noteQueue) setFloor(version int64) {
	q.mu.Lock()
	if version > q.floor {
		q.floor = version
	}
	kept := q.notes[:0]
	for _, n := range q.notes {
		if n.method != "display/state" || frameVersion(n.params) > q.floor {
			kept = append(kept, n)
		}
	}
	q.notes = kept
	q.mu.Unlock()
}

// frameVersion is a display/state frame's version.
func frameVersion(params json.RawMessage) int64 {
	var f struct {
		Version int64 `json:"version"`
	}
	_ = json.Unmarshal(params, &f)
	return f.Version
}

// take waits for notifications. resync is true when display frames were
// dropped since the last take: send a snapshot first. open is false once
// up (the upstream) or down (the editor connection) ends: what was queued
// is still returned.
func (q *noteQueue) take(up, down context.Context) (notes []note, resync, open bool) {
	for {
		q.mu.Lock()
		q.settle()
		notes, q.notes = q.notes, nil
		resync, q.resync = q.resync, false
		q.mu.Unlock()
		if len(notes) > 0 || resync {
			return notes, resync, true
		}
		select {
		case <-q.wake:
		case <-up.Done():
			q.mu.Lock()
			q.settle()
			notes, q.notes = q.notes, nil
			q.mu.Unlock()
			return notes, false, false
		case <-down.Done():
			return nil, false, false
		}
	}
}
