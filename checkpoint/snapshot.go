package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
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
	// Written is how many bytes this snapshot wrote to the store: new
	// blobs, folder objects, the manifest and the stat cache.
	Written int64
}

// Snapshot checkpoints the workspace: every file that is not ignored,
// stored by content, and a manifest naming them. When the files are those
// of the store's previous snapshot, nothing is written: the previous
// manifest's id is the answer.
func (s *Store) Snapshot(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, snap, err := s.scanLocked(ctx)
	defer func() { s.written.Add(snap.Written) }()
	if err != nil {
		return Snapshot{}, err
	}
	if id, ok := s.sameAsLast(m); ok {
		snap.ID = id
		return snap, nil
	}
	id, written, err := s.putManifest(m)
	snap.Written += written
	if err != nil {
		return Snapshot{}, err
	}
	s.last = lastManifest{id: id, files: m.Files, touched: s.opts.Now()}
	snap.ID = id
	return snap, nil
}

// lastManifest is the store's previous snapshot, kept in memory so that
// an unchanged workspace is compared, not encoded, hashed and written.
type lastManifest struct {
	id      string
	files   []File
	touched time.Time // when its file's mtime was last set (pruning grace)
}

// sameAsLast reports whether m holds the files of the previous snapshot
// whose manifest is still in the store, refreshing its mtime for the
// pruning grace when that is half spent.
func (s *Store) sameAsLast(m *Manifest) (string, bool) {
	l := &s.last
	if l.id == "" || !slices.Equal(l.files, m.Files) {
		return "", false
	}
	p := s.path("manifests", l.id)
	if _, err := os.Stat(p); err != nil {
		return "", false
	}
	if now := s.opts.Now(); now.Sub(l.touched) > PruneGrace/2 {
		_ = os.Chtimes(p, now, now)
		l.touched = now
	}
	return l.id, true
}

// scanLocked walks the workspace into a manifest (sorted by path), storing
// the blobs of the files it had to hash.
func (s *Store) scanLocked(ctx context.Context) (*Manifest, Snapshot, error) {
	sc := &scan{s: s, ctx: ctx}
	sc.cond = sync.NewCond(&sc.mu)
	parts := sc.run(dirJob{patterns: slices.Clip(basePatterns(s.root))})
	if sc.err != nil {
		return nil, Snapshot{}, sc.err
	}
	m := &Manifest{}
	var snap Snapshot
	for _, p := range parts {
		m.Files = append(m.Files, p.files...)
		snap.Skipped = append(snap.Skipped, p.skipped...)
		snap.Hashed += p.hashed
		snap.Written += p.written
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(snap.Skipped)
	snap.Files = len(m.Files)
	s.cache.retain(m.Files)
	n, err := s.cache.save()
	if err != nil {
		return nil, Snapshot{}, fmt.Errorf("checkpoint: stat cache: %w", err)
	}
	snap.Written += n
	return m, snap, nil
}

// scan is one walk of the workspace: a queue of folders shared out to
// GOMAXPROCS goroutines at every depth (a checkpoint is bound by readdir
// and stat calls), each folder carrying the ignore patterns in effect.
type scan struct {
	s   *Store
	ctx context.Context

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []dirJob
	active int // folders queued or being read
	err    error
}

// dirJob is a folder to read: its path under the root ("" for the root)
// and the ignore patterns of the folders above it.
type dirJob struct {
	rel      string
	parts    []string
	patterns []gitignore.Pattern
}

// part is what one goroutine of a scan found.
type part struct {
	files   []File
	skipped []string
	hashed  int
	written int64
}

func (sc *scan) run(root dirJob) []*part {
	sc.queue, sc.active = []dirJob{root}, 1
	parts := make([]*part, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i := range parts {
		p := &part{}
		parts[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				job, ok := sc.next()
				if !ok {
					return
				}
				sc.done(sc.dir(p, job))
			}
		}()
	}
	wg.Wait()
	return parts
}

// next takes a folder to read; ok is false when the walk is over (or failed).
func (sc *scan) next() (dirJob, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for len(sc.queue) == 0 && sc.active > 0 && sc.err == nil {
		sc.cond.Wait()
	}
	if sc.err != nil || len(sc.queue) == 0 {
		return dirJob{}, false
	}
	j := sc.queue[len(sc.queue)-1] // depth first: the queue stays short
	sc.queue = sc.queue[:len(sc.queue)-1]
	return j, true
}

func (sc *scan) push(jobs []dirJob) {
	if len(jobs) == 0 {
		return
	}
	sc.mu.Lock()
	sc.queue = append(sc.queue, jobs...)
	sc.active += len(jobs)
	sc.mu.Unlock()
	sc.cond.Broadcast()
}

func (sc *scan) done(err error) {
	sc.mu.Lock()
	sc.active--
	if err != nil && sc.err == nil {
		sc.err = err
	}
	end := sc.active == 0 || sc.err != nil
	sc.mu.Unlock()
	if end {
		sc.cond.Broadcast()
	}
}

// dir reads one folder: its ignore files, its files, and queues its
// folders.
func (sc *scan) dir(p *part, job dirJob) error {
	if err := sc.ctx.Err(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	abs := sc.s.root
	if job.rel != "" {
		abs = filepath.Join(abs, filepath.FromSlash(job.rel))
	}
	d, err := openDir(abs)
	if err == nil {
		defer d.close()
	}
	var entries []fs.DirEntry
	if err == nil {
		entries, err = d.entries()
	}
	if err != nil {
		if job.rel != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)) {
			return nil // gone meanwhile, or not ours to read
		}
		return fmt.Errorf("checkpoint: read %s: %w", abs, err)
	}
	patterns := job.patterns
	for _, name := range []string{".gitignore", ".ignore"} { // in this order: .ignore's rules win
		if slices.ContainsFunc(entries, func(de fs.DirEntry) bool { return de.Name() == name }) {
			patterns = append(slices.Clip(patterns), readPatternFile(filepath.Join(abs, name), job.parts)...)
		}
	}
	var subdirs []dirJob
	for _, de := range entries {
		name := de.Name()
		parts := append(job.parts[:len(job.parts):len(job.parts)], name)
		isDir := de.IsDir()
		if ignoredBy(patterns, parts, isDir) {
			continue
		}
		rel := name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		if isDir {
			if slices.Contains(sc.s.opts.Exclude, rel) {
				continue // another root's, in its own store
			}
			subdirs = append(subdirs, dirJob{rel: rel, parts: parts, patterns: slices.Clip(patterns)})
			continue
		}
		if err := sc.file(p, d, abs, rel, name, de.Type()); err != nil {
			return err
		}
	}
	sc.push(subdirs)
	return nil
}

func (sc *scan) file(p *part, d *dirHandle, dirAbs, rel, name string, typ fs.FileMode) error {
	if typ&^fs.ModeSymlink != 0 {
		return nil // sockets, pipes, devices: not content
	}
	st, err := d.stat(name)
	if err != nil || st.mode.Type()&^fs.ModeSymlink != 0 {
		return nil // gone or no longer a file meanwhile
	}
	link := st.mode&fs.ModeSymlink != 0
	if !link && st.size > sc.s.opts.MaxFileBytes {
		p.skipped = append(p.skipped, rel)
		return nil
	}
	hash, ok := sc.s.cache.lookup(rel, st)
	if !ok {
		abs := filepath.Join(dirAbs, name)
		var data []byte
		if link {
			target, err := os.Readlink(abs)
			if err != nil {
				return nil
			}
			data = []byte(target)
		} else if data, err = os.ReadFile(abs); err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return fmt.Errorf("checkpoint: read %s: %w", rel, err)
		}
		sum := sha256.Sum256(data)
		hash = hex.EncodeToString(sum[:])
		n, err := sc.s.putBlob(hash, data)
		if err != nil {
			return err
		}
		p.written += n
		p.hashed++
		sc.s.hashes.Add(1)
		// The stat taken before reading: a change during the read shows as
		// a different stat next time.
		sc.s.cache.put(rel, st, hash, sc.s.opts.Now())
	}
	size := st.size
	if link {
		size = 0
	}
	p.files = append(p.files, File{Path: rel, Mode: st.recorded(), Size: size, Hash: hash})
	return nil
}
