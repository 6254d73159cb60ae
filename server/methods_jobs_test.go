package server

import (
	"context"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/outbox"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Past the coalescing point, a job's output events merge into one (per
// job) in the connection's outbox, like token deltas; a job_update is never
// merged.
func TestOutboxMergesJobOutput(t *testing.T) {
	out := outbox.New(outbox.Options{MergeAt: 1})
	ev := func(id, s string, seq uint64) harness.Event {
		return harness.Event{Type: harness.EvJobOutput, Seq: seq, Job: &harness.JobView{ID: id}, Output: s}
	}
	queueEvent(out, ev("job-1", "a", 1))
	queueEvent(out, ev("job-1", "b", 2))
	queueEvent(out, ev("job-1", "c", 3))
	queueEvent(out, ev("job-2", "x", 4))
	queueEvent(out, harness.Event{Type: harness.EvJob, Seq: 5, Job: &harness.JobView{ID: "job-2", Status: "exited"}})
	items, _, _ := out.Take(context.Background())
	var evs []protocol.Event
	for _, it := range items {
		p, ok := it.Payload().(protocol.EventParams)
		if !ok {
			t.Fatalf("item %+v", it)
		}
		evs = append(evs, p.Event)
	}
	if len(evs) != 3 || evs[0].Output != "abc" || evs[0].Seq != 3 || evs[1].Output != "x" || evs[2].Type != protocol.EvJob {
		t.Fatalf("%+v", evs)
	}
}
