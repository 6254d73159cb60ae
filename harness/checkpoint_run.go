package harness

import (
	"context"
	"sync"

	"github.com/pi-lsp/pi-lsp/checkpoint"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
)

// The run-start checkpoint is off the turn's critical path: it is taken in
// the background from the moment the run's prompt is recorded, while the
// first model request streams, and the run joins it before it records the
// first answer, so before any tool (write, edit, bash, a job, a subagent)
// can change a file. Its entry is recorded at the join: as the prompt's
// child, or below entries recorded meanwhile (a compaction, job notes),
// never below the first answer; resolveCheckpoint looks there.

// runCheckpoint is a run-start checkpoint being taken.
type runCheckpoint struct {
	s      *session.Session
	done   chan struct{}
	stores []ckStore
	snaps  []checkpoint.Snapshot
	errs   []error
	err    error // the stores could not be opened

	once sync.Once
	data checkpointData
}

// startRunCheckpoint starts the run-start checkpoint (nil when checkpoints
// are off). The caller must join it.
func (h *Harness) startRunCheckpoint(ctx context.Context) *runCheckpoint {
	s := h.currentSession()
	if !h.checkpointsOn() || s == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // an abort does not cut a checkpoint short
	h.ck.changing.Store(false)
	rc := &runCheckpoint{s: s, done: make(chan struct{})}
	go func() {
		defer close(rc.done)
		rc.stores, rc.err = h.checkpointStores(ctx)
		if rc.err == nil {
			rc.snaps, rc.errs = snapshotAll(ctx, rc.stores)
		}
	}()
	return rc
}

// join waits for the snapshots and records their entry (the first call
// only); it returns the checkpoint's data (ID "" when it failed or rc is
// nil).
func (rc *runCheckpoint) join(ctx context.Context, h *Harness) checkpointData {
	if rc == nil {
		return checkpointData{}
	}
	rc.once.Do(func() {
		<-rc.done
		if rc.err != nil {
			return // no store: checkpointStores told why when the session opened
		}
		rc.data = h.recordCheckpoint(context.WithoutCancel(ctx), rc.s, rc.stores, ckStart, checkpointData{}, rc.snaps, rc.errs)
	})
	return rc.data
}

// startBelow finds the start checkpoint of a prompt's run recorded below
// entries appended while it was taken: it follows the prompt's
// descendants through entries that are not user or assistant messages.
func startBelow(s *session.Session, promptID string) (checkpointData, bool) {
	queue := s.Children(promptID)
	for n := 0; len(queue) > 0 && n < 256; n++ {
		id := queue[0]
		queue = queue[1:]
		e, err := s.Entry(id)
		if err != nil {
			continue
		}
		if d, ok := checkpointOf(e); ok && d.Kind == ckStart {
			return d, true
		}
		if e.Type == session.TypeMessage && e.Message != nil && (e.Message.Role == llm.RoleUser || e.Message.Role == llm.RoleAssistant) {
			continue // the run answered, or another prompt: not this run's start
		}
		queue = append(queue, s.Children(id)...)
	}
	return checkpointData{}, false
}

// hasCommandHooks reports whether shell-command hooks are configured (any
// of them may change files, in any run).
func (h *Harness) hasCommandHooks() bool {
	return h.cfg.CommandHooks != nil && len(h.cfg.CommandHooks.Hooks) > 0
}
