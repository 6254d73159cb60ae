package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Snapshot is the outcome of a checkpoint.
type Snapshot struct {
	// ID names the manifest; the same files give the same ID.
	ID string
	// Files is how many files it holds.
	Files int
	// Skipped are the files left out for being larger than MaxFileBytes.
	Skipped []string
	// Hashed is how many files this snapshot read and hashed (the others
	// were known to the stat cache).
	Hashed int
}

// Snapshot checkpoints the workspace: every file that is not ignored,
// stored by content, and a manifest naming them.
func (s *Store) Snapshot(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, snap, err := s.scanLocked(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	id, err := s.putManifest(m)
	if err != nil {
		return Snapshot{}, err
	}
	snap.ID = id
	return snap, nil
}

// scanLocked walks the workspace into a manifest, storing the blobs of the
// files it had to hash.
func (s *Store) scanLocked(ctx context.Context) (*Manifest, Snapshot, error) {
	w := walker{s: s, ctx: ctx, ig: newIgnorer(s.root), seen: map[string]bool{}}
	if err := w.root(); err != nil {
		return nil, Snapshot{}, err
	}
	s.cache.retain(w.seen)
	if err := s.cache.save(); err != nil {
		return nil, Snapshot{}, fmt.Errorf("checkpoint: stat cache: %w", err)
	}
	sort.Slice(w.m.Files, func(i, j int) bool { return w.m.Files[i].Path < w.m.Files[j].Path })
	sort.Strings(w.skipped)
	return &w.m, Snapshot{Files: len(w.m.Files), Skipped: w.skipped, Hashed: w.hashed}, nil
}

type walker struct {
	s       *Store
	ctx     context.Context
	ig      *ignorer
	m       Manifest
	seen    map[string]bool
	skipped []string
	hashed  int
	// subdirs, at the root, collects the folders for root to share out.
	subdirs *[]string
}

// root walks the workspace: the root's files here, its folders on up to
// GOMAXPROCS goroutines (a checkpoint is bound by stat and read calls), each
// with its own copy of the ignore patterns, merged at the end.
func (w *walker) root() error {
	var subdirs []string
	w.subdirs = &subdirs
	if err := w.dir(nil); err != nil {
		return err
	}
	w.subdirs = nil
	workers := min(runtime.GOMAXPROCS(0), len(subdirs))
	parts := make([]*walker, workers)
	next := make(chan string)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for i := range parts {
		pw := &walker{s: w.s, ctx: w.ctx, ig: &ignorer{patterns: slices.Clip(w.ig.patterns)}, seen: map[string]bool{}}
		parts[i] = pw
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			for d := range next {
				if err == nil {
					err = pw.dir([]string{d})
				}
			}
			errs <- err
		}()
	}
	for _, d := range subdirs {
		next <- d
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	for _, pw := range parts {
		w.m.Files = append(w.m.Files, pw.m.Files...)
		w.skipped = append(w.skipped, pw.skipped...)
		w.hashed += pw.hashed
		for p := range pw.seen {
			w.seen[p] = true
		}
	}
	return nil
}

// dir walks one folder (parts under the root).
func (w *walker) dir(parts []string) error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	abs := filepath.Join(append([]string{w.s.root}, parts...)...)
	entries, err := os.ReadDir(abs)
	if err != nil {
		if len(parts) > 0 && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
			return nil // gone meanwhile, or not ours to read
		}
		return fmt.Errorf("checkpoint: read %s: %w", abs, err)
	}
	if len(parts) == 0 {
		// The root's own ignore files apply to all, and stay.
		w.ig.enter(w.s.root, parts)
	} else {
		mark := w.ig.enter(w.s.root, parts)
		defer w.ig.leave(mark)
	}
	for _, de := range entries {
		child := append(append([]string(nil), parts...), de.Name())
		isDir := de.IsDir()
		if w.ig.ignored(child, isDir) {
			continue
		}
		if isDir && w.subdirs != nil {
			*w.subdirs = append(*w.subdirs, de.Name())
			continue
		}
		if isDir {
			if err := w.dir(child); err != nil {
				return err
			}
			continue
		}
		if err := w.file(child, de); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) file(parts []string, de fs.DirEntry) error {
	typ := de.Type()
	if typ&^fs.ModeSymlink != 0 {
		return nil // sockets, pipes, devices: not content
	}
	info, err := de.Info()
	if err != nil {
		return nil // gone meanwhile
	}
	rel := path.Join(parts...)
	abs := filepath.Join(w.s.root, filepath.FromSlash(rel))
	if typ&fs.ModeSymlink == 0 && info.Size() > w.s.opts.MaxFileBytes {
		w.skipped = append(w.skipped, rel)
		return nil
	}
	w.seen[rel] = true
	hash, ok := w.s.cache.lookup(rel, info)
	if !ok {
		var data []byte
		if typ&fs.ModeSymlink != 0 {
			target, err := os.Readlink(abs)
			if err != nil {
				return nil
			}
			data = []byte(target)
		} else if data, err = os.ReadFile(abs); err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				delete(w.seen, rel)
				return nil
			}
			return fmt.Errorf("checkpoint: read %s: %w", rel, err)
		}
		sum := sha256.Sum256(data)
		hash = hex.EncodeToString(sum[:])
		if err := w.s.putBlob(hash, data); err != nil {
			return err
		}
		w.hashed++
		w.s.hashes.Add(1)
		// The stat taken before reading: a change during the read shows as
		// a different stat next time.
		w.s.cache.put(rel, info, hash, w.s.opts.Now())
	}
	size := info.Size()
	if typ&fs.ModeSymlink != 0 {
		size = 0
	}
	w.m.Files = append(w.m.Files, File{Path: rel, Mode: fileMode(info), Size: size, Hash: hash})
	return nil
}
