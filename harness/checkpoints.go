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

// checkpointData is a pi-lsp/checkpoint entry's data: the main root's
// manifest (id, files) and the extra roots' (checkpoint_roots.go).
type checkpointData struct {
	ID      string     `json:"id"`
	Kind    string     `json:"kind"`
	Files   int        `json:"files"`
	Skipped []string   `json:"skipped,omitempty"`
	Roots   []rootData `json:"roots,omitempty"`
}

// checkpointState is the harness's stores, opened at first use.
type checkpointState struct {
	mu sync.Mutex
	// store is the main root's, stores every root's (store first).
	store  *checkpoint.Store
	stores []ckStore
	err    error
	opened bool
	// skipped are the large files (and the failing extra roots, as "root
	// failed: <root>") already told about.
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

// checkpointStores opens the stores of every workspace root (once, the
// main root's first), finishing a restore a crash cut short and pruning
// what deleted sessions left.
func (h *Harness) checkpointStores(ctx context.Context) ([]ckStore, error) {
	if !h.checkpointsOn() {
		return nil, fmt.Errorf("%w: checkpoints are disabled (checkpoints.enabled)", ErrNoCheckpoint)
	}
	c := &h.ck
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opened {
		return c.stores, c.err
	}
	c.opened = true
	c.stores, c.err = h.openStores()
	if c.err != nil {
		return nil, c.err
	}
	c.store = c.stores[0].st
	for _, cs := range c.stores {
		h.finishPending(ctx, cs)
	}
	for _, cs := range c.stores {
		if !cs.st.PruneDue() {
			continue
		}
		if st, err := cs.st.Prune(ctx); err != nil {
			h.log.Warn("checkpoint prune", "root", cs.root, "err", err)
		} else if st.Manifests > 0 || st.Blobs > 0 {
			h.log.Info("checkpoint prune", "root", cs.root, "manifests", st.Manifests, "blobs", st.Blobs, "bytes", st.Bytes)
		}
	}
	return c.stores, nil
}

// finishPending finishes a restore of cs's root that a crash cut short.
func (h *Harness) finishPending(ctx context.Context, cs ckStore) {
	target, before, ok := cs.st.Pending()
	if !ok {
		return
	}
	what := "the workspace's files"
	if cs.root != "" {
		what = "the files of the workspace root " + cs.root
	}
	res, err := cs.st.Restore(ctx, target, before)
	if err != nil {
		h.sessionNotice(fmt.Sprintf("A restore of %s was interrupted and could not be finished: %v. The files may be partly restored; checkpoint %s holds the files as they were before it.", what, err, before))
	} else {
		h.sessionNotice(fmt.Sprintf("A restore of %s was interrupted; it was finished now (%d restored, %d deleted, %d failed).", what, res.Restored, res.Deleted, len(res.Failed)))
	}
}

// openCheckpoints opens the store when a session opens, so that an
// interrupted restore is finished (with a notice) before anything else.
func (h *Harness) openCheckpoints(ctx context.Context) {
	if h.checkpointsOn() {
		if _, err := h.checkpointStores(ctx); err != nil {
			h.sessionNotice(fmt.Sprintf("Checkpoints are off for this workspace: %v", err))
		}
	}
}

// checkpoint snapshots every workspace root and records it as a custom
// entry at the leaf of s, unless the leaf already stands on the same files
// (skip). It returns the entry's data (ID "" when checkpoints are off or
// failed; a failure is a notice, never the run's end).
func (h *Harness) checkpoint(ctx context.Context, s *session.Session, kind string, skip checkpointData) checkpointData {
	stores, err := h.checkpointStores(ctx)
	if err != nil || s == nil {
		return checkpointData{}
	}
	snaps, errs := snapshotAll(ctx, stores)
	return h.recordCheckpoint(ctx, s, stores, kind, skip, snaps, errs)
}

// recordCheckpoint records the snapshots taken of stores (or says why
// they failed).
func (h *Harness) recordCheckpoint(ctx context.Context, s *session.Session, stores []ckStore, kind string, skip checkpointData, snaps []checkpoint.Snapshot, errs []error) checkpointData {
	d, err := h.checkpointSet(stores, kind, snaps, errs)
	if err != nil {
		h.notice(fmt.Sprintf("Checkpoint of the workspace failed: %v", err))
		return checkpointData{}
	}
	h.tellSkipped(d.Skipped)
	if d.same(skip) {
		return skip
	}
	if _, err := s.AppendCustom(ctx, customCheckpoint, d); err != nil {
		h.notice(fmt.Sprintf("Recording a checkpoint failed: %v", err))
		return checkpointData{}
	}
	h.refAll(s.Path(), stores, d)
	return d
}

// refAll records in each root's store that session file path references
// d's manifest of that root.
func (h *Harness) refAll(path string, stores []ckStore, d checkpointData) {
	for _, cs := range stores {
		if id, ok := d.idOf(cs.root); ok {
			if err := cs.st.Ref(path, id); err != nil {
				h.log.Warn("checkpoint ref", "root", cs.root, "err", err)
			}
		}
	}
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
func resolveCheckpoint(s *session.Session, targetID string) (checkpointData, error) {
	e, err := s.Entry(targetID)
	if err != nil {
		return checkpointData{}, fmt.Errorf("%w: entry %q: %w", ErrNotFound, targetID, err)
	}
	isPrompt := (e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleUser) || e.Type == session.TypeCustomMessage
	kids := s.Children(targetID)
	for i := len(kids) - 1; i >= 0; i-- {
		k, err := s.Entry(kids[i])
		if err != nil {
			continue
		}
		if d, ok := checkpointOf(k); ok && (isPrompt == (d.Kind == ckStart)) {
			return d, nil
		}
	}
	if isPrompt {
		if d, ok := startBelow(s, targetID); ok {
			return d, nil
		}
	} else if d, ok := endBelow(s, targetID); ok {
		return d, nil
	}
	from := targetID
	if isPrompt {
		from = e.ParentID
	}
	if from != "" {
		path, err := s.Branch(from)
		if err != nil {
			return checkpointData{}, fmt.Errorf("%w: entry %q: %w", ErrNotFound, targetID, err)
		}
		for i := len(path) - 1; i >= 0; i-- {
			if d, ok := checkpointOf(path[i]); ok {
				return d, nil
			}
		}
	}
	return checkpointData{}, fmt.Errorf("%w for entry %s: it was recorded without checkpoints", ErrNoCheckpoint, targetID)
}

// refCheckpoints records that the current session references every
// checkpoint on its branch (after a fork or clone copied them), so that
// pruning keeps them while this session exists.
func (h *Harness) refCheckpoints(ctx context.Context) {
	s := h.currentSession()
	if s == nil || !h.checkpointsOn() {
		return
	}
	stores, err := h.checkpointStores(ctx)
	if err != nil {
		return
	}
	branch, err := s.Branch("")
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, e := range branch {
		if d, ok := checkpointOf(e); ok && !seen[strings.Join(d.ids(), " ")] {
			seen[strings.Join(d.ids(), " ")] = true
			h.refAll(s.Path(), stores, d)
		}
	}
}
