package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// What a restore does to a file.
const (
	Modified = "modified"
	Added    = "added"
	Deleted  = "deleted"
)

// Change is one file a restore would change: Current is the file as it is
// (nil when a restore adds it), Target as it would become (nil when a
// restore deletes it).
type Change struct {
	Path            string
	Kind            string
	Current, Target *File
}

// Failure is a file a restore could not change.
type Failure struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

// Result is what a restore did.
type Result struct {
	Restored, Deleted int
	Failed            []Failure
}

// Changes compares the workspace with checkpoint id: what a restore would
// change, sorted by path. It writes nothing to the workspace (the store
// keeps the blobs of files it hashed).
func (s *Store) Changes(ctx context.Context, id string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := s.Manifest(id)
	if err != nil {
		return nil, err
	}
	cur, _, err := s.scanLocked(ctx)
	if err != nil {
		return nil, err
	}
	return diffManifests(cur, target), nil
}

func diffManifests(cur, target *Manifest) []Change {
	ci, ti := cur.index(), target.index()
	var out []Change
	for _, f := range target.Files {
		t := f
		c, ok := ci[f.Path]
		switch {
		case !ok:
			out = append(out, Change{Path: f.Path, Kind: Added, Target: &t})
		case c.Hash != f.Hash || c.Mode != f.Mode:
			out = append(out, Change{Path: f.Path, Kind: Modified, Current: &c, Target: &t})
		}
	}
	for _, f := range cur.Files {
		if _, ok := ti[f.Path]; !ok {
			c := f
			out = append(out, Change{Path: f.Path, Kind: Deleted, Current: &c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Blob returns the stored bytes of a file of a checkpoint.
func (s *Store) Blob(hash string) ([]byte, error) { return s.blob(hash) }

// journal is written before a restore changes the first file and removed
// after the last: found at open, it means a restore was cut short.
type journal struct {
	Target string `json:"target"`
	Before string `json:"before,omitempty"`
}

func (s *Store) journalPath() string { return s.path("journal.json") }

// Pending returns the checkpoint an unfinished restore was putting back
// (and the checkpoint taken before it, when known); ok is false when no
// restore was cut short.
func (s *Store) Pending() (target, before string, ok bool) {
	data, err := os.ReadFile(s.journalPath())
	if err != nil {
		return "", "", false
	}
	var j journal
	if json.Unmarshal(data, &j) != nil || j.Target == "" {
		return "", "", false
	}
	return j.Target, j.Before, true
}

// Intend records (as the journal) that a restore to checkpoint id is
// about to start, before is the checkpoint of the files it replaces. A
// caller restoring several stores together writes every store's journal
// first, so that a crash between two stores' restores leaves each store
// one to finish at the next open. Restore writes it too.
func (s *Store) Intend(id, before string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, _ := json.Marshal(journal{Target: id, Before: before})
	return writeAtomic(s.journalPath(), j)
}

// Restore makes the workspace's files what they were at checkpoint id:
// changed files are written whole with their mode, files the checkpoint
// lacks are deleted with the folders that emptied, ignored files are not
// touched. before names the checkpoint of the files being replaced (kept
// in the journal so that an interrupted restore can be undone).
//
// A missing or corrupt checkpoint is an error before any file changes. A
// file that cannot be written is reported in Result.Failed and the others
// are restored.
func (s *Store) Restore(ctx context.Context, id, before string) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := s.Manifest(id)
	if err != nil {
		return Result{}, err
	}
	cur, _, err := s.scanLocked(ctx)
	if err != nil {
		return Result{}, err
	}
	changes := diffManifests(cur, target)
	// Every blob to write must be there and whole before anything changes.
	for _, c := range changes {
		if c.Target != nil && (c.Current == nil || c.Current.Hash != c.Target.Hash) {
			if _, err := s.blob(c.Target.Hash); err != nil {
				return Result{}, fmt.Errorf("%w (file %s)", err, c.Path)
			}
		}
	}
	if len(changes) == 0 {
		_ = os.Remove(s.journalPath())
		return Result{}, nil
	}
	j, _ := json.Marshal(journal{Target: id, Before: before})
	if err := writeAtomic(s.journalPath(), j); err != nil {
		return Result{}, err
	}
	var res Result
	fail := func(p string, err error) {
		res.Failed = append(res.Failed, Failure{Path: p, Err: err.Error()})
	}
	var emptied []string
	for _, c := range changes {
		if c.Kind != Deleted {
			continue
		}
		abs, err := s.safePath(c.Path)
		if err == nil {
			err = os.Remove(abs)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fail(c.Path, err)
			continue
		}
		res.Deleted++
		emptied = append(emptied, path.Dir(c.Path))
	}
	s.removeEmptied(emptied)
	for _, c := range changes {
		if c.Kind == Deleted {
			continue
		}
		if err := s.writeFile(c); err != nil {
			fail(c.Path, err)
			continue
		}
		res.Restored++
	}
	// Files written changed their stat: the next snapshot hashes them (the
	// cache checks ctime and inode), so nothing here needs to change it.
	if len(res.Failed) == 0 {
		if err := os.Remove(s.journalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("checkpoint: journal: %w", err)
		}
	} else {
		// Failures are reported to the caller; the journal would only make
		// the next open try again and fail the same way.
		_ = os.Remove(s.journalPath())
	}
	return res, nil
}

// errOutside: a path that would be written through a symlink or outside
// the workspace root.
var errOutside = errors.New("outside the workspace")

// safePath returns rel's absolute path after checking that no folder on
// the way is a symlink (a restore never writes through one).
func (s *Store) safePath(rel string) (string, error) {
	if !LocalPath(rel) {
		return "", errOutside
	}
	parts := strings.Split(rel, "/")
	dir := s.root
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%w: %s is a symlink", errOutside, dir)
		}
	}
	return filepath.Join(s.root, filepath.FromSlash(rel)), nil
}

func (s *Store) writeFile(c Change) error {
	abs, err := s.safePath(c.Path)
	if err != nil {
		return err
	}
	t := c.Target
	if c.Current != nil && c.Current.Hash == t.Hash && c.Current.Mode&fs.ModeSymlink == t.Mode&fs.ModeSymlink {
		if t.Mode&fs.ModeSymlink != 0 {
			return nil
		}
		return os.Chmod(abs, t.Mode.Perm()) // only the mode changed
	}
	data, err := s.blob(t.Hash)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if info, err := os.Lstat(abs); err == nil {
		if info.IsDir() {
			return fmt.Errorf("a folder is in the way")
		}
		if info.Mode()&fs.ModeSymlink != 0 || t.Mode&fs.ModeSymlink != 0 {
			if err := os.Remove(abs); err != nil { // never write through a link
				return err
			}
		}
	}
	if t.Mode&fs.ModeSymlink != 0 {
		return os.Symlink(string(data), abs)
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, t.Mode.Perm())
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	return os.Chmod(abs, t.Mode.Perm())
}

// removeEmptied removes the folders (and their parents, up to the root)
// that deleting files left empty; a folder with anything left in it, an
// ignored file for example, stays.
func (s *Store) removeEmptied(dirs []string) {
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		for d != "." && d != "/" && d != "" {
			abs, err := s.safePath(d + "/x")
			if err != nil {
				break
			}
			if os.Remove(filepath.Dir(abs)) != nil {
				break
			}
			d = path.Dir(d)
		}
	}
}
