package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Errors a caller can tell apart.
var (
	// ErrNotFound: no such checkpoint in the store.
	ErrNotFound = errors.New("checkpoint not found")
	// ErrCorrupt: a manifest or blob does not match its hash.
	ErrCorrupt = errors.New("checkpoint corrupt")
)

// DefaultMaxFileBytes is checkpoints.maxFileBytes's default: larger files
// are left out with a notice.
const DefaultMaxFileBytes = 10 << 20

// Options configure a Store.
type Options struct {
	// MaxFileBytes: files larger are skipped (0 = DefaultMaxFileBytes).
	MaxFileBytes int64
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// Exclude are folders under the root (slash-separated, relative) that
	// the walk leaves out: other workspace roots nested in this one, which
	// have their own store.
	Exclude []string
}

// Store is one workspace's checkpoint store. Its methods are safe for
// concurrent use; they run one at a time.
type Store struct {
	dir, root string
	opts      Options

	mu    sync.Mutex
	cache *statCache
	last  lastManifest

	// hashes counts the files read and hashed by snapshots (for tests and
	// the benchmark: an unchanged workspace must add none).
	hashes atomic.Int64
	// written counts the bytes snapshots wrote (Snapshot.Written).
	written atomic.Int64
}

// WorkspaceKey is the folder name of a workspace's store: the root's base
// name (for people) and 16 hex digits of the SHA-256 of its absolute path.
func WorkspaceKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	base := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r < ' ' {
			return '-'
		}
		return r
	}, filepath.Base(root))
	if len(base) > 40 {
		base = base[:40]
	}
	return base + "-" + hex.EncodeToString(sum[:8])
}

// Open opens (creating) the store of the workspace root under storeRoot
// (~/.pi/agent/checkpoints).
func Open(storeRoot, root string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: workspace: %w", err)
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{dir: filepath.Join(storeRoot, WorkspaceKey(abs)), root: abs, opts: opts}
	for _, d := range []string{storeRoot, s.dir, s.path("objects"), s.path("manifests"), s.path("trees"), s.path("refs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint: store: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint: store: %w", err)
		}
	}
	s.cache = loadStatCache(s.path("statcache"))
	return s, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Root is the workspace root.
func (s *Store) Root() string { return s.root }

// Hashes is how many files snapshots have read and hashed so far.
func (s *Store) Hashes() int64 { return s.hashes.Load() }

// Written is how many bytes snapshots have written to the store so far.
func (s *Store) Written() int64 { return s.written.Load() }

func (s *Store) path(elem ...string) string {
	return filepath.Join(append([]string{s.dir}, elem...)...)
}

func (s *Store) blobPath(hash string) string {
	return s.path("objects", hash[:2], hash[2:])
}

// putBlob stores data under its hash unless it is there already; it
// returns the bytes it wrote.
func (s *Store) putBlob(hash string, data []byte) (int64, error) {
	p := s.blobPath(hash)
	if _, err := os.Stat(p); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, fmt.Errorf("checkpoint: store blob: %w", err)
	}
	if err := writeAtomic(p, data); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// blob reads a blob and checks it against its hash.
func (s *Store) blob(hash string) ([]byte, error) {
	if len(hash) != 64 {
		return nil, fmt.Errorf("%w: bad blob name %q", ErrCorrupt, hash)
	}
	data, err := os.ReadFile(s.blobPath(hash))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: blob %s is missing", ErrCorrupt, hash[:12])
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read blob: %w", err)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != hash {
		return nil, fmt.Errorf("%w: blob %s does not match its hash", ErrCorrupt, hash[:12])
	}
	return data, nil
}

// writeAtomic writes data to p through a temporary file in the same
// folder (mode 0600) and a rename.
func writeAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), p)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("checkpoint: write %s: %w", filepath.Base(p), werr)
	}
	return nil
}

// Manifest loads a checkpoint's manifest, checking it (and every folder
// object of format 2) against its id.
func (s *Store) Manifest(id string) (*Manifest, error) {
	return s.manifest(id, nil)
}

// manifest is Manifest, noting the folder objects it read in seen.
func (s *Store) manifest(id string, seen map[string]bool) (*Manifest, error) {
	if len(id) != 32 || strings.ContainsAny(id, "/\\.") {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	text, err := os.ReadFile(s.path("manifests", id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if !bytes.HasPrefix(text, []byte(treeHeader)) {
		return decodeManifest(id, text) // format 1
	}
	if manifestID(text) != id {
		return nil, fmt.Errorf("%w: manifest %s does not match its hash", ErrCorrupt, id)
	}
	m := &Manifest{}
	if err := s.readTree(m, id, id, "", text, 0, seen); err != nil {
		return nil, err
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return m, nil
}

// putManifest stores m (sorted by path) as a tree of folder objects and
// returns its id and the bytes it wrote.
func (s *Store) putManifest(m *Manifest) (string, int64, error) {
	text, id, written, err := s.putTrees(m.Files)
	if err != nil {
		return "", written, err
	}
	p := s.path("manifests", id)
	if _, err := os.Stat(p); err == nil {
		now := s.opts.Now()
		_ = os.Chtimes(p, now, now) // fresh for the pruning grace period
		return id, written, nil
	}
	if err := writeAtomic(p, text); err != nil {
		return "", written, err
	}
	return id, written + int64(len(text)), nil
}
