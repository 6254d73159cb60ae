package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pi-lsp/pi-lsp/checkpoint"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Checkpoints of the workspace (rewind with files): the harness snapshots
// the workspace at the start of every run (after the prompt is recorded,
// before the first tool), after a run that changed files, and before a
// restore replaces the files. Each is a custom entry of type
// pi-lsp/checkpoint naming a manifest of the checkpoint store; pi ignores
// it when it builds the context.

const customCheckpoint = "pi-lsp/checkpoint"

// Kinds of checkpoint entry.
const (
	ckStart   = "start"   // a run starts (child of its prompt)
	ckEnd     = "end"     // a run that changed files ended
	ckRestore = "restore" // the files a restore replaced
)

// CheckpointSettings configure checkpoints (settings "checkpoints").
type CheckpointSettings struct {
	// Disabled is checkpoints.enabled false.
	Disabled bool
	// MaxFileBytes is checkpoints.maxFileBytes (0 = 10 MiB).
	MaxFileBytes int64
	// Dir is the store root (~/.pi/agent/checkpoints); "" = checkpoints
	// are off (a harness built without a home, in tests).
	Dir string
}

// ErrNoCheckpoint: the entry has no checkpoint to restore (a session
// recorded without checkpoints).
// It is an ErrNotFound.
var ErrNoCheckpoint = fmt.Errorf("%w: no checkpoint", ErrNotFound)

type checkpointData struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Files   int      `json:"files"`
	Skipped []string `json:"skipped,omitempty"`
}

// checkpointState is the harness's store, opened at first use.
type checkpointState struct {
	mu     sync.Mutex
	store  *checkpoint.Store
	err    error
	opened bool
	// skipped are the large files already told about.
	skipped map[string]bool
	// changing: a tool that may change files (any but the read tools) ran
	// in the current run.
	changing atomic.Bool

	// endMu guards pending: closed when the end checkpoint in flight is
	// recorded (nil when none was started). See checkpoint_end.go.
	endMu   sync.Mutex
	pending chan struct{}
}

// noteToolRuns notes that tool t is about to run in the current run.
func (h *Harness) noteToolRuns(t tools.Tool) {
	if t.Category() != tools.CategoryRead {
		h.ck.changing.Store(true)
	}
}

func (h *Harness) checkpointsOn() bool {
	c := h.cfg.Checkpoints
	return !c.Disabled && c.Dir != ""
}

// checkpointStore opens the workspace's store (once), finishing a restore
// a crash cut short and pruning what deleted sessions left.
func (h *Harness) checkpointStore(ctx context.Context) (*checkpoint.Store, error) {
	if !h.checkpointsOn() {
		return nil, fmt.Errorf("%w: checkpoints are disabled (checkpoints.enabled)", ErrNoCheckpoint)
	}
	c := &h.ck
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opened {
		return c.store, c.err
	}
	c.opened = true
	dir := h.cfg.Checkpoints.Dir
	c.store, c.err = checkpoint.Open(dir, h.Cwd(), checkpoint.Options{MaxFileBytes: h.cfg.Checkpoints.MaxFileBytes, Now: h.cfg.Now})
	if c.err != nil {
		return nil, c.err
	}
	if target, before, ok := c.store.Pending(); ok {
		res, err := c.store.Restore(ctx, target, before)
		if err != nil {
			h.sessionNotice(fmt.Sprintf("A restore of the workspace's files was interrupted and could not be finished: %v. The files may be partly restored; checkpoint %s holds the files as they were before it.", err, before))
		} else {
			h.sessionNotice(fmt.Sprintf("A restore of the workspace's files was interrupted; it was finished now (%d restored, %d deleted, %d failed).", res.Restored, res.Deleted, len(res.Failed)))
		}
	}
	if c.store.PruneDue() {
		if st, err := c.store.Prune(ctx); err != nil {
			h.log.Warn("checkpoint prune", "err", err)
		} else if st.Manifests > 0 || st.Blobs > 0 {
			h.log.Info("checkpoint prune", "manifests", st.Manifests, "blobs", st.Blobs, "bytes", st.Bytes)
		}
	}
	return c.store, nil
}

// openCheckpoints opens the store when a session opens, so that an
// interrupted restore is finished (with a notice) before anything else.
func (h *Harness) openCheckpoints(ctx context.Context) {
	if h.checkpointsOn() {
		if _, err := h.checkpointStore(ctx); err != nil {
			h.sessionNotice(fmt.Sprintf("Checkpoints are off for this workspace: %v", err))
		}
	}
}

// checkpoint snapshots the workspace and records it as a custom entry at
// the leaf of s, unless the leaf already stands on the same files (skip).
// It returns the manifest id ("" when checkpoints are off or failed; a
// failure is a notice, never the run's end).
func (h *Harness) checkpoint(ctx context.Context, s *session.Session, kind, skip string) string {
	st, err := h.checkpointStore(ctx)
	if err != nil || s == nil {
		return ""
	}
	snap, err := st.Snapshot(ctx)
	return h.recordCheckpoint(ctx, s, st, kind, skip, snap, err)
}

// recordCheckpoint records a snapshot taken of st (or says why it failed).
func (h *Harness) recordCheckpoint(ctx context.Context, s *session.Session, st *checkpoint.Store, kind, skip string, snap checkpoint.Snapshot, err error) string {
	if err != nil {
		h.notice(fmt.Sprintf("Checkpoint of the workspace failed: %v", err))
		return ""
	}
	h.tellSkipped(snap.Skipped)
	if snap.ID == skip {
		return snap.ID
	}
	if _, err := s.AppendCustom(ctx, customCheckpoint, checkpointData{ID: snap.ID, Kind: kind, Files: snap.Files, Skipped: snap.Skipped}); err != nil {
		h.notice(fmt.Sprintf("Recording a checkpoint failed: %v", err))
		return ""
	}
	if err := st.Ref(s.Path(), snap.ID); err != nil {
		h.log.Warn("checkpoint ref", "err", err)
	}
	return snap.ID
}

func (h *Harness) tellSkipped(paths []string) {
	var fresh []string
	h.ck.mu.Lock()
	if h.ck.skipped == nil {
		h.ck.skipped = map[string]bool{}
	}
	for _, p := range paths {
		if !h.ck.skipped[p] {
			h.ck.skipped[p] = true
			fresh = append(fresh, p)
		}
	}
	h.ck.mu.Unlock()
	if len(fresh) > 0 {
		h.notice(fmt.Sprintf("Checkpoints leave out %d file(s) larger than checkpoints.maxFileBytes: %s", len(fresh), strings.Join(fresh, ", ")))
	}
}

func checkpointOf(e *session.Entry) (checkpointData, bool) {
	if e == nil || e.Type != session.TypeCustom || e.CustomType != customCheckpoint {
		return checkpointData{}, false
	}
	var d checkpointData
	if json.Unmarshal(e.Data, &d) != nil || d.ID == "" {
		return checkpointData{}, false
	}
	return d, true
}

// resolveCheckpoint finds the checkpoint that holds the files of entry
// targetID:
//   - a user (or custom) message: the files just before its run started,
//     the "start" checkpoint recorded right after it; a message sent into
//     a running run (steer, follow-up) has the run's start checkpoint;
//   - any other entry: the files when the conversation stood there, the
//     newest "end" or "restore" checkpoint recorded below it, else the
//     nearest checkpoint on its path from the root (the entry itself when
//     it is one).
func resolveCheckpoint(s *session.Session, targetID string) (string, error) {
	e, err := s.Entry(targetID)
	if err != nil {
		return "", fmt.Errorf("%w: entry %q: %w", ErrNotFound, targetID, err)
	}
	isPrompt := (e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleUser) || e.Type == session.TypeCustomMessage
	kids := s.Children(targetID)
	for i := len(kids) - 1; i >= 0; i-- {
		k, err := s.Entry(kids[i])
		if err != nil {
			continue
		}
		if d, ok := checkpointOf(k); ok && (isPrompt == (d.Kind == ckStart)) {
			return d.ID, nil
		}
	}
	if isPrompt {
		if id, ok := startBelow(s, targetID); ok {
			return id, nil
		}
	} else if id, ok := endBelow(s, targetID); ok {
		return id, nil
	}
	from := targetID
	if isPrompt {
		from = e.ParentID
	}
	if from != "" {
		path, err := s.Branch(from)
		if err != nil {
			return "", fmt.Errorf("%w: entry %q: %w", ErrNotFound, targetID, err)
		}
		for i := len(path) - 1; i >= 0; i-- {
			if d, ok := checkpointOf(path[i]); ok {
				return d.ID, nil
			}
		}
	}
	return "", fmt.Errorf("%w for entry %s: it was recorded without checkpoints", ErrNoCheckpoint, targetID)
}

// refCheckpoints records that the current session references every
// checkpoint on its branch (after a fork or clone copied them), so that
// pruning keeps them while this session exists.
func (h *Harness) refCheckpoints(ctx context.Context) {
	s := h.currentSession()
	if s == nil || !h.checkpointsOn() {
		return
	}
	st, err := h.checkpointStore(ctx)
	if err != nil {
		return
	}
	branch, err := s.Branch("")
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, e := range branch {
		if d, ok := checkpointOf(e); ok && !seen[d.ID] {
			seen[d.ID] = true
			if err := st.Ref(s.Path(), d.ID); err != nil {
				h.log.Warn("checkpoint ref", "err", err)
				return
			}
		}
	}
}
