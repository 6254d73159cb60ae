package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/pi-lsp/pi-lsp/checkpoint"
	"github.com/pi-lsp/pi-lsp/env"
)

// Checkpoints of every read-write root: the main root (the cwd) and the
// extra roots (--root, permissions.roots) each have their own store, keyed
// by the root's path as the main root's always was. A checkpoint entry
// names the main root's manifest in "id" (so entries written before extra
// roots were covered read as they did) and each extra root's manifest in
// "roots": [{"root": "/abs/path", "id": "…", "files": n}]. The roots are
// walked in parallel, and an unchanged root's walk reuses its own stat
// cache and previous manifest, so an extra root adds its stat calls and
// nothing else to a turn.
//
// A root nested in another covered root is not a root of its own: its
// files are the outer root's. The main root nested in an extra root is
// left out of that root's walk (checkpoint.Options.Exclude).
//
// A restore changes only the roots that both the target and the files it
// replaces have a checkpoint of: an entry recorded before a root was added
// (or before extra roots were covered) leaves that root's files as they
// are, and a root recorded but no longer configured is not written.

// ckStore is one root's checkpoint store.
type ckStore struct {
	// root is "" for the main root, else the extra root's resolved
	// absolute path (as recorded in the entry's "roots").
	root string
	st   *checkpoint.Store
}

// rootData is an extra root's part of a checkpoint entry.
type rootData struct {
	Root  string `json:"root"`
	ID    string `json:"id"`
	Files int    `json:"files"`
}

// idOf is the manifest id of the root's files in d (ok false when d has
// no checkpoint of that root).
func (d checkpointData) idOf(root string) (string, bool) {
	if root == "" {
		return d.ID, d.ID != ""
	}
	for _, r := range d.Roots {
		if r.Root == root && r.ID != "" {
			return r.ID, true
		}
	}
	return "", false
}

// same reports whether d and o stand on the same files in every root.
func (d checkpointData) same(o checkpointData) bool {
	if d.ID != o.ID || len(d.Roots) != len(o.Roots) {
		return false
	}
	for _, r := range d.Roots {
		if id, ok := o.idOf(r.Root); !ok || id != r.ID {
			return false
		}
	}
	return true
}

// ids are the manifest ids of every root of d.
func (d checkpointData) ids() []string {
	out := []string{d.ID}
	for _, r := range d.Roots {
		out = append(out, r.ID)
	}
	return out
}

// extraRoots are the read-write roots besides the main one, resolved,
// without those nested in a root before them (the main root first); for
// each kept root (the main root at index 0), excl are the folders of the
// other kept roots nested in it, relative to it.
func extraRoots(main string, roots []string) (extra []string, excl [][]string) {
	kept := []string{main}
	for _, r := range roots {
		if !slices.ContainsFunc(kept, func(k string) bool { return env.Within(r, k) }) {
			kept = append(kept, r)
		}
	}
	excl = make([][]string, len(kept))
	for i, outer := range kept {
		for j, inner := range kept {
			if i != j && env.Within(inner, outer) {
				if rel, err := filepath.Rel(outer, inner); err == nil {
					excl[i] = append(excl[i], filepath.ToSlash(rel))
				}
			}
		}
	}
	return kept[1:], excl
}

// openStores opens the store of every root (the main root's first). A
// failure to open the main root's store is the error; an extra root that
// cannot be opened is told about and left out.
func (h *Harness) openStores() ([]ckStore, error) {
	dir := h.cfg.Checkpoints.Dir
	opts := func(excl []string) checkpoint.Options {
		return checkpoint.Options{MaxFileBytes: h.cfg.Checkpoints.MaxFileBytes, Now: h.cfg.Now, Exclude: excl}
	}
	extra, excl := extraRoots(env.ResolveLinks(h.Cwd()), h.ws.Roots())
	st, err := checkpoint.Open(dir, h.Cwd(), opts(excl[0]))
	if err != nil {
		return nil, err
	}
	out := []ckStore{{st: st}}
	for i, r := range extra {
		st, err := checkpoint.Open(dir, r, opts(excl[i+1]))
		if err != nil {
			h.sessionNotice(fmt.Sprintf("Checkpoints leave out the workspace root %s: %v", r, err))
			continue
		}
		out = append(out, ckStore{root: r, st: st})
	}
	return out, nil
}

// displayPath is how a file of a root is named to clients: relative to
// the main root for its files, the absolute path for an extra root's.
func (c ckStore) displayPath(rel string) string {
	if c.root == "" {
		return rel
	}
	return filepath.ToSlash(filepath.Join(c.root, filepath.FromSlash(rel)))
}

// snapshotAll checkpoints every root, in parallel; snaps[i] and errs[i]
// are stores[i]'s.
func snapshotAll(ctx context.Context, stores []ckStore) ([]checkpoint.Snapshot, []error) {
	snaps, errs := make([]checkpoint.Snapshot, len(stores)), make([]error, len(stores))
	eachStore(stores, func(i int, c ckStore) { snaps[i], errs[i] = c.st.Snapshot(ctx) })
	return snaps, errs
}

// eachStore runs f for every store, in parallel when there are several
// (each store has its own lock; their walks share nothing).
func eachStore(stores []ckStore, f func(int, ckStore)) {
	if len(stores) == 1 {
		f(0, stores[0])
		return
	}
	var wg sync.WaitGroup
	for i, c := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i, c)
		}()
	}
	wg.Wait()
}

// checkpointSet builds the entry data of a snapshot of every root, or
// says why it failed: the main root's failure fails the checkpoint; an
// extra root's leaves that root out of it, with a notice.
func (h *Harness) checkpointSet(stores []ckStore, kind string, snaps []checkpoint.Snapshot, errs []error) (checkpointData, error) {
	if errs[0] != nil {
		return checkpointData{}, errs[0]
	}
	d := checkpointData{ID: snaps[0].ID, Kind: kind, Files: snaps[0].Files, Skipped: snaps[0].Skipped}
	for i, c := range stores[1:] {
		snap, err := snaps[i+1], errs[i+1]
		if err != nil {
			if h.firstTime("root failed: " + c.root) {
				h.notice(fmt.Sprintf("Checkpoint of the workspace root %s failed, it is left out of checkpoints while it fails: %v", c.root, err))
			}
			continue
		}
		d.Roots = append(d.Roots, rootData{Root: c.root, ID: snap.ID, Files: snap.Files})
		for _, p := range snap.Skipped {
			d.Skipped = append(d.Skipped, c.displayPath(p))
		}
	}
	return d, nil
}

// rootChanges is what a restore would change in one root.
type rootChanges struct {
	cs      ckStore
	id      string // the target's manifest of the root
	changes []checkpoint.Change
}

// changesAll compares every root that d has a checkpoint of with it, in
// parallel; it returns the roots with changes, the main root first. A
// missing or corrupt checkpoint, or a main root that cannot be read, is
// the error; an extra root that cannot be read (removed meanwhile) is
// returned in unread with why, and changes nothing.
func changesAll(ctx context.Context, stores []ckStore, d checkpointData) (out []rootChanges, unread []checkpoint.Failure, err error) {
	all := make([]rootChanges, len(stores))
	errs := make([]error, len(stores))
	eachStore(stores, func(i int, cs ckStore) {
		if id, ok := d.idOf(cs.root); ok {
			all[i] = rootChanges{cs: cs, id: id}
			all[i].changes, errs[i] = cs.st.Changes(ctx, id)
		}
	})
	for i, rc := range all {
		if e := errs[i]; e != nil {
			if i == 0 || errors.Is(e, checkpoint.ErrNotFound) || errors.Is(e, checkpoint.ErrCorrupt) || ctx.Err() != nil {
				return nil, nil, e
			}
			unread = append(unread, checkpoint.Failure{Path: rc.cs.root, Err: "not restored: the workspace root cannot be read: " + e.Error()})
			continue
		}
		if len(rc.changes) > 0 {
			out = append(out, rc)
		}
	}
	return out, unread, nil
}

// checkBlobs fails unless every blob the restore of rc writes is in the
// store and whole (checkpoint.Store.Restore checks its own root too; this
// check makes a corrupt root fail before any root's files change).
func (rc rootChanges) checkBlobs() error {
	for _, c := range rc.changes {
		if c.Target != nil && (c.Current == nil || c.Current.Hash != c.Target.Hash) {
			if _, err := rc.cs.st.Blob(c.Target.Hash); err != nil {
				return fmt.Errorf("%w (file %s)", err, rc.cs.displayPath(c.Path))
			}
		}
	}
	return nil
}

// firstTime reports whether key is new to this harness's checkpoints (a
// notice told once, not at every turn).
func (h *Harness) firstTime(key string) bool {
	h.ck.mu.Lock()
	defer h.ck.mu.Unlock()
	if h.ck.skipped == nil {
		h.ck.skipped = map[string]bool{}
	}
	if h.ck.skipped[key] {
		return false
	}
	h.ck.skipped[key] = true
	return true
}
