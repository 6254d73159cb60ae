package display

import (
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// A job's outputTail in the state grows by appends (coalesced by the
// scheduler like token deltas) up to maxJobTail bytes, then is cut back to
// its last keptJobTail bytes with one set.
const (
	maxJobTail  = 8 << 10
	keptJobTail = 4 << 10
)

// WireJob is a harness job view as the wire shows it.
func WireJob(v harness.JobView) protocol.Job {
	j := protocol.Job{ID: v.ID, Command: v.Command, Status: protocol.JobStatus(v.Status), ExitCode: v.ExitCode,
		StartedAt: v.StartedAt, OutputTail: v.OutputTail, Pid: v.Pid, OutputPath: v.OutputPath}
	if v.EndedAt != 0 {
		e := v.EndedAt
		j.EndedAt = &e
	}
	return j
}

func (r *Reducer) jobIndex(id string) int {
	for i := range r.st.Jobs {
		if r.st.Jobs[i].ID == id {
			return i
		}
	}
	return -1
}

// jobUpdate adds a job or replaces its state, keeping the output tail the
// state already shows when the event carries none.
func (r *Reducer) jobUpdate(v *harness.JobView) {
	if v == nil {
		return
	}
	j := WireJob(*v)
	i := r.jobIndex(v.ID)
	if i < 0 {
		j.OutputTail = textcut.Tail(j.OutputTail, keptJobTail)
		r.st.Jobs = append(r.st.Jobs, j)
		r.push(path("jobs"), j)
		return
	}
	if j.OutputTail == "" {
		j.OutputTail = r.st.Jobs[i].OutputTail
	} else {
		j.OutputTail = textcut.Tail(j.OutputTail, keptJobTail)
	}
	r.st.Jobs[i] = j
	r.set(path("jobs", i), j)
}

// jobOutput appends a chunk of a job's output to its tail.
func (r *Reducer) jobOutput(v *harness.JobView, chunk string) {
	if v == nil || chunk == "" {
		return
	}
	i := r.jobIndex(v.ID)
	if i < 0 {
		return
	}
	j := &r.st.Jobs[i]
	if len(j.OutputTail)+len(chunk) > maxJobTail {
		j.OutputTail = textcut.Tail(j.OutputTail+chunk, keptJobTail)
		r.set(path("jobs", i, "outputTail"), j.OutputTail)
		return
	}
	j.OutputTail += chunk
	r.appendStr(path("jobs", i, "outputTail"), chunk)
}
