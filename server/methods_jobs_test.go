package server

import (
	"context"
	"testing"

	"github.com/pi-lsp/pi-lsp/harness"
)

// Past the coalescing point, a job's output events merge into one (per
// job), like token deltas; a job_update is never merged.
func TestEventQueueMergesJobOutput(t *testing.T) {
	q := newEventQueue(1)
	out := func(id, s string, seq uint64) harness.Event {
		return harness.Event{Type: harness.EvJobOutput, Seq: seq, Job: &harness.JobView{ID: id}, Output: s}
	}
	q.add(out("job-1", "a", 1))
	q.add(out("job-1", "b", 2))
	q.add(out("job-1", "c", 3))
	q.add(out("job-2", "x", 4))
	q.add(harness.Event{Type: harness.EvJob, Seq: 5, Job: &harness.JobView{ID: "job-2", Status: "exited"}})
	q.add(out("job-2", "y", 6))
	evs, _ := q.take(context.Background())
	if len(evs) != 4 || evs[0].Output != "abc" || evs[0].Seq != 3 || evs[1].Output != "x" || evs[2].Type != harness.EvJob || evs[3].Output != "y" {
		t.Fatalf("%+v", evs)
	}
}
