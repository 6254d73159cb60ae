package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/checkpoint"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// FileChange is one file a restore would change (session/rewindPreview).
type FileChange struct {
	Path   string `json:"path"`
	Change string `json:"change"` // modified|added|deleted
	Diff   string `json:"diff"`   // unified diff; "" for a binary file
}

// FilesResult is what a restore did to the files.
type FilesResult struct {
	Restored int                  `json:"restored"`
	Deleted  int                  `json:"deleted"`
	Paths    []string             `json:"paths,omitempty"`
	Failed   []checkpoint.Failure `json:"failed,omitempty"`
}

// maxDiffBytes: larger text files are listed without a diff body.
const maxDiffBytes = 1 << 20

// RewindPreview lists what restoring the files of entry targetID would
// change, with a unified diff for each text file. It changes nothing.
func (h *Harness) RewindPreview(ctx context.Context, targetID string) ([]FileChange, error) {
	if err := h.settleCheckpoint(ctx); err != nil {
		return nil, err
	}
	s := h.currentSession()
	if s == nil {
		return nil, ErrNoSession
	}
	d, err := resolveCheckpoint(s, targetID)
	if err != nil {
		return nil, err
	}
	stores, err := h.checkpointStores(ctx)
	if err != nil {
		return nil, err
	}
	roots, _, err := changesAll(ctx, stores, d) // an unreadable extra root lists nothing
	if err != nil {
		return nil, checkpointErr(targetID, err)
	}
	out := []FileChange{}
	for _, rc := range roots {
		st := rc.cs.st
		for _, c := range rc.changes {
			p := rc.cs.displayPath(c.Path)
			fc := FileChange{Path: p, Change: c.Kind}
			var cur, tgt []byte
			if c.Current != nil {
				cur, _ = os.ReadFile(filepath.Join(st.Root(), filepath.FromSlash(c.Path)))
			}
			if c.Target != nil {
				if tgt, err = st.Blob(c.Target.Hash); err != nil {
					return nil, checkpointErr(targetID, err)
				}
			}
			if isText(cur) && isText(tgt) && len(cur)+len(tgt) <= maxDiffBytes {
				fc.Diff = tools.UnifiedDiff(p, string(cur), string(tgt))
			}
			out = append(out, fc)
		}
	}
	return out, nil
}

func isText(b []byte) bool {
	n := min(len(b), 8000)
	return !strings.ContainsRune(string(b[:n]), 0) && utf8.Valid(b)
}

func checkpointErr(targetID string, err error) error {
	if errors.Is(err, checkpoint.ErrNotFound) || errors.Is(err, checkpoint.ErrCorrupt) {
		return fmt.Errorf("%w: the checkpoint of entry %s: %w", ErrNoCheckpoint, targetID, err)
	}
	return err
}

// RestoreFiles makes the workspace's files what they were at entry
// targetID, leaving the conversation where it is. The files it replaces
// are checkpointed first (below the leaf), so nothing is lost.
func (h *Harness) RestoreFiles(ctx context.Context, targetID string) (FilesResult, error) {
	if err := h.owner.claim(PhaseIdle); err != nil {
		return FilesResult{}, err
	}
	defer h.owner.release()
	if err := h.settleCheckpoint(ctx); err != nil {
		return FilesResult{}, err
	}
	s := h.currentSession()
	if s == nil {
		return FilesResult{}, ErrNoSession
	}
	leaf := s.LeafID()
	res, err := h.restoreFilesLocked(ctx, s, targetID)
	if err != nil {
		return res, err
	}
	// The "restore" checkpoint went below the leaf: the conversation stays.
	if s.LeafID() != leaf {
		if err := s.Navigate(ctx, leaf); err != nil {
			return res, fmt.Errorf("restore files: %w", err)
		}
		h.emit(h.sessionEvent(ctx))
	}
	return res, nil
}

// checkRestorable fails unless targetID has a whole checkpoint (of every
// root it has one of).
func (h *Harness) checkRestorable(ctx context.Context, s *session.Session, targetID string) error {
	d, err := resolveCheckpoint(s, targetID)
	if err != nil {
		return err
	}
	stores, err := h.checkpointStores(ctx)
	if err != nil {
		return err
	}
	return checkManifests(stores, d, targetID)
}

// checkManifests fails unless every root d has a checkpoint of has its
// manifest whole in its store.
func checkManifests(stores []ckStore, d checkpointData, targetID string) error {
	for _, cs := range stores {
		if id, ok := d.idOf(cs.root); ok {
			if _, err := cs.st.Manifest(id); err != nil {
				return checkpointErr(targetID, err)
			}
		}
	}
	return nil
}

// restoreFilesLocked restores the files of targetID with the harness
// claimed: the checkpoint must be whole (in every root) before anything
// changes; the current files are checkpointed at the leaf; every root's
// journal is written; then the files are written, root by root.
func (h *Harness) restoreFilesLocked(ctx context.Context, s *session.Session, targetID string) (FilesResult, error) {
	d, err := resolveCheckpoint(s, targetID)
	if err != nil {
		return FilesResult{}, err
	}
	stores, err := h.checkpointStores(ctx)
	if err != nil {
		return FilesResult{}, err
	}
	if err := checkManifests(stores, d, targetID); err != nil {
		return FilesResult{}, err
	}
	roots, unread, err := changesAll(ctx, stores, d)
	if err != nil {
		return FilesResult{}, checkpointErr(targetID, err)
	}
	res := FilesResult{Failed: unread}
	if len(roots) == 0 {
		h.reportFailed(targetID, res.Failed)
		return res, nil
	}
	// What the leaf stands on now, unless it is recorded already.
	var known checkpointData
	if leaf := s.LeafID(); leaf != "" {
		known, _ = resolveCheckpoint(s, leaf)
	}
	before := h.checkpoint(ctx, s, ckRestore, known)
	if before.ID == "" {
		return FilesResult{}, fmt.Errorf("restore files: the current files could not be checkpointed, so nothing was restored")
	}
	todo := roots[:0:0]
	for _, rc := range roots {
		if _, ok := before.idOf(rc.cs.root); !ok {
			// Its current files are in no checkpoint: a restore would lose them.
			res.Failed = append(res.Failed, checkpoint.Failure{Path: rc.cs.root, Err: "not restored: the current files of this workspace root could not be checkpointed"})
			continue
		}
		if err := rc.checkBlobs(); err != nil {
			return FilesResult{}, checkpointErr(targetID, err)
		}
		todo = append(todo, rc)
	}
	// Every root's journal first: a crash in the middle of one root's
	// restore leaves every root's to finish at the next open.
	for _, rc := range todo {
		bid, _ := before.idOf(rc.cs.root)
		if err := rc.cs.st.Intend(rc.id, bid); err != nil {
			return FilesResult{}, err
		}
	}
	for _, rc := range todo {
		bid, _ := before.idOf(rc.cs.root)
		r, err := rc.cs.st.Restore(ctx, rc.id, bid)
		if err != nil {
			return res, checkpointErr(targetID, err)
		}
		res.Restored += r.Restored
		res.Deleted += r.Deleted
		failed := map[string]bool{}
		for _, f := range r.Failed {
			failed[f.Path] = true
			res.Failed = append(res.Failed, checkpoint.Failure{Path: rc.cs.displayPath(f.Path), Err: f.Err})
		}
		for _, c := range rc.changes {
			if !failed[c.Path] {
				res.Paths = append(res.Paths, rc.cs.displayPath(c.Path))
			}
		}
	}
	h.refAll(s.Path(), stores, d)
	h.reportFailed(targetID, res.Failed)
	return res, nil
}

// reportFailed tells (an error item) the files or roots a restore could
// not write.
func (h *Harness) reportFailed(targetID string, failed []checkpoint.Failure) {
	if len(failed) == 0 {
		return
	}
	var b strings.Builder
	for _, f := range failed {
		fmt.Fprintf(&b, "\n- %s: %s", f.Path, f.Err)
	}
	h.emit(Event{Type: EvError, Error: fmt.Sprintf("Restoring the files of entry %s: %d file(s) could not be written:%s", targetID, len(failed), b.String())})
}

// ForkFiles is Fork, and with restoreFiles the files become what they
// were at entryID (checked before the fork, so a target without a whole
// checkpoint forks nothing).
func (h *Harness) ForkFiles(ctx context.Context, entryID string, at, restoreFiles bool) (SessionInfo, string, *FilesResult, error) {
	if restoreFiles {
		if err := h.precheck(ctx, entryID); err != nil {
			return SessionInfo{}, "", nil, err
		}
	}
	info, text, err := h.Fork(ctx, entryID, at)
	if err != nil || !restoreFiles {
		return info, text, nil, err
	}
	target := entryID
	if s := h.currentSession(); s != nil {
		if _, err := s.Entry(entryID); err != nil {
			target = s.LeafID() // a fork before a prompt stops at its parent
		}
	}
	files, err := h.RestoreFiles(ctx, target)
	return info, text, &files, err
}

// CloneFiles is Clone, and with restoreFiles the files become what they
// were when the conversation stood at the leaf.
func (h *Harness) CloneFiles(ctx context.Context, restoreFiles bool) (SessionInfo, *FilesResult, error) {
	var leaf string
	if s := h.currentSession(); s != nil {
		leaf = s.LeafID()
	}
	if restoreFiles {
		if err := h.precheck(ctx, leaf); err != nil {
			return SessionInfo{}, nil, err
		}
	}
	info, err := h.Clone(ctx)
	if err != nil || !restoreFiles {
		return info, nil, err
	}
	files, err := h.RestoreFiles(ctx, leaf)
	return info, &files, err
}

func (h *Harness) precheck(ctx context.Context, entryID string) error {
	s := h.currentSession()
	if s == nil {
		return ErrNoSession
	}
	if p := h.owner.Phase(); p != PhaseIdle {
		return &BusyError{Phase: p}
	}
	if err := h.settleCheckpoint(ctx); err != nil {
		return err
	}
	return h.checkRestorable(ctx, s, entryID)
}

// Turn is a user message on the current branch, for choosing where to
// rewind (ACP's /rewind, Neovim's :PiRewind).
type Turn struct {
	ID   string
	Text string
}

// Turns returns the user messages of the current branch, oldest first.
func (h *Harness) Turns() ([]Turn, error) {
	s := h.currentSession()
	if s == nil {
		return nil, ErrNoSession
	}
	branch, err := s.Branch("")
	if err != nil {
		return nil, err
	}
	var out []Turn
	for _, e := range branch {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == llm.RoleUser {
			out = append(out, Turn{ID: e.ID, Text: e.Message.Text()})
		}
	}
	return out, nil
}
