package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func updateNote(seq int, kind string, index int, delta string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"event":{"type":"message_update","seq":%d,"deltaKind":%q,"contentIndex":%d,"delta":%q}}`, seq, kind, index, delta))
}

func frameNote(version int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"version":%d,"ops":[["a",["items",0,"text"],"x"]]}`, version))
}

// A slow editor's queue: below the threshold every note is kept as it came;
// past it, token deltas of the same content merge (text and last seq kept),
// other events are never merged or dropped, and display frames give way to
// one snapshot.
func TestNoteQueueIsBoundedForASlowEditor(t *testing.T) {
	const at = 8
	q := newNoteQueue(at)
	for i := range at {
		q.add("harness/event", updateNote(i, "text", 0, "a"))
	}
	q.add("harness/event", updateNote(at, "text", 0, "bc"))
	q.add("harness/event", updateNote(at+1, "text", 0, "d"))
	q.add("harness/event", updateNote(at+2, "thinking", 0, "t")) // another content: not merged
	q.add("harness/event", updateNote(at+3, "thinking", 0, "u"))
	q.add("harness/event", json.RawMessage(`{"event":{"type":"agent_end","seq":99}}`))
	q.add("harness/event", updateNote(at+4, "text", 0, "e")) // after agent_end: not merged into it
	q.add("display/state", frameNote(5))
	q.add("display/state", frameNote(6))
	q.add("session/owner", json.RawMessage(`{"pid":1,"reason":"takeover"}`))

	notes, resync, open := q.take(context.Background(), context.Background())
	if !open || !resync {
		t.Fatalf("open %v resync %v, want both", open, resync)
	}
	var got []string
	for _, n := range notes {
		if n.method != "harness/event" {
			got = append(got, n.method)
			continue
		}
		var p struct {
			Event struct {
				Type  string `json:"type"`
				Seq   int    `json:"seq"`
				Kind  string `json:"deltaKind"`
				Delta string `json:"delta"`
			} `json:"event"`
		}
		if err := json.Unmarshal(n.params, &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%d:%s:%s", p.Event.Type, p.Event.Seq, p.Event.Kind, p.Event.Delta))
	}
	want := []string{}
	for i := range at - 1 {
		want = append(want, fmt.Sprintf("message_update:%d:text:a", i))
	}
	want = append(want,
		fmt.Sprintf("message_update:%d:text:abcd", at+1), // the 8th delta with the two after it
		fmt.Sprintf("message_update:%d:thinking:tu", at+3),
		"agent_end:99::",
		fmt.Sprintf("message_update:%d:text:e", at+4),
		"session/owner")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("queued notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The snapshot sent is version 10: older frames still arriving are
	// dropped, newer ones kept.
	q.add("display/state", frameNote(9))
	q.setFloor(10)
	q.add("display/state", frameNote(10))
	q.add("display/state", frameNote(11))
	notes, resync, _ = q.take(context.Background(), context.Background())
	if resync || len(notes) != 1 || frameVersion(notes[0].params) != 11 {
		t.Fatalf("after the snapshot: resync %v, %d notes %+v", resync, len(notes), notes)
	}
}

// Below the threshold display frames pass as they are.
func TestNoteQueueKeepsFramesOfAFastEditor(t *testing.T) {
	q := newNoteQueue(maxQueuedEvents)
	for v := 1; v <= 3; v++ {
		q.add("display/state", frameNote(v))
	}
	notes, resync, _ := q.take(context.Background(), context.Background())
	if resync || len(notes) != 3 {
		t.Fatalf("resync %v, %d notes", resync, len(notes))
	}
}
