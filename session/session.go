package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ErrClosed is returned by operations on a closed session.
var ErrClosed = errors.New("session: closed")

// ErrReadOnly is returned by writes to a session opened read-only.
var ErrReadOnly = errors.New("session: opened read-only")

// ErrNotSession is returned (wrapped) when a file opened as a session is
// not one: empty, or its first line is not a session header.
var ErrNotSession = errors.New("not a session")

// FormatError is returned by appends to a session whose format version is
// newer than this pi-lsp knows: it is opened read-only.
type FormatError struct {
	Path    string
	Version int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("session %s has format version %d, newer than the version %d this pi-lsp knows: it is opened read-only and nothing is appended to it (start a new session, or update pi-lsp)", e.Path, e.Version, CurrentVersion)
}

// Is makes a *FormatError match ErrReadOnly.
func (e *FormatError) Is(target error) bool { return target == ErrReadOnly }

// ErrNotFound is returned for an entry id that is not in the session.
var ErrNotFound = errors.New("session: entry not found")

// Session is one open session file. It is safe for concurrent use.
type Session struct {
	mu   sync.RWMutex
	path string
	f    *os.File
	lock *fileLock // nil when read-only
	// newerFormat is set when the file's version is above CurrentVersion:
	// it was opened read-only, and appends fail with a *FormatError.
	newerFormat bool
	readOnly    bool
	closed      bool
	header      Header
	fileVersion int // version on disk before migration
	idx         index
	size        int64 // bytes in the file
	needNL      bool  // the file does not end with a newline
	lineNo      int   // lines read so far
	sawHeader   bool
	scanSize    int64 // the file's size when its scan started (sizes the index)
	cache       msgCache
	// loadedFromSidecar is set when the index was read from the sidecar
	// (see sidecar.go) instead of scanning the file.
	loadedFromSidecar bool
	// The last context plan (see planContext), guarded by planMu because
	// readers under mu.RLock make it.
	planMu  sync.Mutex
	planKey planKey
	planVal plan

	wmu          sync.Mutex // guards warnings (added to under the read lock too)
	warnings     []string
	moreWarnings int
	// idxWarnings are the warnings about the indexed lines (not about
	// later reads): the sidecar keeps them with the index.
	idxWarnings []string

	// savedSize is how much of the file the saved sidecar covers (0: none).
	// saveAfterOpen's goroutine sets it holding only the read lock; that is
	// sound because every other access holds the write lock.
	savedSize int64
	// saveDue is set by a full scan: the index is saved beside the file
	// when the open is done (saveAfterOpen), or at Close.
	saveDue bool
	saves   sync.WaitGroup // the save saveAfterOpen started
	// stats counts the scanning this Session did (tests assert on it).
	stats scanStats
	// sequential turns the parallel full scan off, parallel turns it on
	// whatever the file's size and the cores (tests compare the two).
	sequential, parallel bool
}

// scanStats counts how an index was built.
type scanStats struct {
	fullScans    int   // scans from the file's start
	scannedBytes int64 // bytes read by scans (full and catch-up)
}

// CreateOptions configures Create.
type CreateOptions struct {
	// ParentSession is recorded in the header (the session this one was
	// forked or cloned from).
	ParentSession string
	// Hidden puts the session in the "subagents" subdirectory, which List
	// and ListAll skip (forked subagents).
	Hidden bool
	// Dir, if set, is the directory to create the file in instead of
	// DirFor(root, cwd) (Hidden still adds "subagents").
	Dir string
}

// OpenOptions configures Open.
type OpenOptions struct {
	// ReadOnly opens without taking the writer lock; appends fail.
	ReadOnly bool
}

// Create starts a new session for cwd under root, writes (and fsyncs) its
// header and takes the writer lock.
func Create(ctx context.Context, root, cwd string, opts CreateOptions) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = DirFor(root, cwd)
	}
	if opts.Hidden {
		dir = filepath.Join(dir, SubagentDir)
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	id, err := newSessionID()
	if err != nil {
		return nil, err
	}
	ts := nowISO()
	path := filepath.Join(dir, fileNameFor(ts, id))
	h := Header{Version: CurrentVersion, ID: id, Timestamp: ts, Cwd: cwd, ParentSession: opts.ParentSession}
	hb, _ := json.Marshal(h) // a Header always encodes
	hb = append(hb, '\n')
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: create: %w", err)
	}
	lk, err := acquireLock(path)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	fail := func(err error) (*Session, error) {
		f.Close()
		os.Remove(path)
		releaseLock(lk)
		return nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	if _, err := f.Write(hb); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := syncDir(dir); err != nil {
		return fail(err)
	}
	return &Session{
		path: path, f: f, lock: lk, header: h, fileVersion: CurrentVersion,
		idx: newIndex(false), size: int64(len(hb)), lineNo: 1, sawHeader: true,
	}, nil
}

// Open opens an existing session file and indexes it in one pass. Unless
// opts.ReadOnly, it takes the writer lock (a *LockedError if another writer
// holds it) and rewrites a v1/v2 file as v3.
func Open(ctx context.Context, path string, opts OpenOptions) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("session: open: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("session: open %s: not a regular file", abs)
	}
	s := &Session{path: abs, readOnly: opts.ReadOnly}
	// The header is validated first: nothing (no lock) is left behind for
	// a file that is not a session.
	if err := s.openAndLoad(ctx); err != nil {
		return nil, err
	}
	if s.fileVersion > CurrentVersion {
		// A format this pi-lsp does not know: read it, never append to it.
		s.newerFormat = true
		if !s.readOnly {
			s.readOnly = true
			s.f.Close()
			if err := s.openAndLoad(ctx); err != nil {
				return nil, err
			}
		}
		s.warn((&FormatError{Path: abs, Version: s.fileVersion}).Error())
		s.saveAfterOpen()
		return s, nil
	}
	if !opts.ReadOnly {
		if s.lock, err = acquireLock(abs); err != nil {
			s.f.Close()
			return nil, err
		}
		// Lines appended between the scan and the lock.
		if err := s.catchUp(ctx, false); err != nil {
			s.f.Close()
			releaseLock(s.lock)
			return nil, err
		}
	}
	if !opts.ReadOnly && s.fileVersion < CurrentVersion {
		err := s.rewriteMigrated()
		s.f.Close()
		if err == nil {
			// The rewrite is a new inode: lock it, then let the old one go.
			var lk *fileLock
			if lk, err = acquireLock(abs); err == nil {
				releaseLock(s.lock)
				s.lock = lk
				err = s.openAndLoad(ctx)
			}
		}
		if err != nil {
			releaseLock(s.lock)
			return nil, err
		}
	}
	s.saveAfterOpen()
	return s, nil
}

func (s *Session) openAndLoad(ctx context.Context) error {
	flag := os.O_RDONLY
	if !s.readOnly {
		flag = os.O_RDWR | os.O_APPEND
	}
	f, err := os.OpenFile(s.path, flag, 0)
	if err != nil {
		return fmt.Errorf("session: open: %w", err)
	}
	s.f = f
	s.wmu.Lock()
	s.warnings, s.moreWarnings, s.idxWarnings = nil, 0, nil
	s.wmu.Unlock()
	if err := s.load(ctx); err != nil {
		f.Close()
		return err
	}
	return nil
}

// readLine returns the raw line of record i as stored on disk.
func (s *Session) readLine(i int32) ([]byte, error) {
	r := &s.idx.recs[i]
	buf := make([]byte, r.n)
	if _, err := s.f.ReadAt(buf, r.off); err != nil {
		return nil, fmt.Errorf("session: read entry %s: %w", s.idx.id(i), err)
	}
	return buf, nil
}

// line returns record i's line, migrated to v3.
func (s *Session) line(i int32) ([]byte, error) {
	b, err := s.readLine(i)
	if err != nil {
		return nil, err
	}
	return s.migrateLine(i, b)
}

// decode returns record i decoded.
func (s *Session) decode(i int32) (*Entry, error) {
	b, err := s.line(i)
	if err != nil {
		return nil, err
	}
	e, err := decodeEntry(b)
	if err != nil {
		r := &s.idx.recs[i]
		return nil, fmt.Errorf("%s: line %d: entry %s: %w", filepath.Base(s.path), r.line, s.idx.id(i), err)
	}
	return e, nil
}

// decodeOrWarn decodes record i; an entry that does not decode (a wrongly
// typed field) is reported once as a warning naming its line and left out
// (nil).
func (s *Session) decodeOrWarn(i int32) *Entry {
	e, err := s.decode(i)
	if err != nil {
		s.warn(err.Error() + " (left out)")
		return nil
	}
	return e
}

// Close releases the writer lock and closes the file. Closing twice is a
// no-op.
func (s *Session) Close() error {
	s.saves.Wait() // a background save of the index ends first
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.keepSidecarCurrent(true)
	err := s.f.Close()
	if lerr := releaseLock(s.lock); err == nil {
		err = lerr
	}
	if err != nil {
		return fmt.Errorf("session: close %s: %w", s.path, err)
	}
	return nil
}

// Path is the session file's absolute path.
func (s *Session) Path() string { return s.path }

// ID is the session id from the header.
func (s *Session) ID() string { return s.header.ID }

// Header returns the header (Version is the migrated version, 3).
func (s *Session) Header() Header { return s.header }

// FileVersion is the format version found on disk before any migration.
func (s *Session) FileVersion() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.fileVersion
}

// Cwd is the working directory recorded in the header.
func (s *Session) Cwd() string { return s.header.Cwd }

// ReadOnly reports whether the session was opened without the writer lock.
func (s *Session) ReadOnly() bool { return s.readOnly }

// Name is the session name from the latest session_info entry ("" if none).
func (s *Session) Name() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.name
}

// EntryCount is the number of entries (the header and skipped lines are not
// counted).
func (s *Session) EntryCount() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.idx.recs)
}

// LeafID is the current leaf ("" = before the first entry).
func (s *Session) LeafID() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx.leaf == none {
		return ""
	}
	return s.idx.id(s.idx.leaf)
}

// Warnings lists the lines skipped or tolerated while loading.
func (s *Session) Warnings() []string {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	out := append([]string(nil), s.warnings...)
	if s.moreWarnings > 0 {
		out = append(out, fmt.Sprintf("(%d more warnings not shown)", s.moreWarnings))
	}
	return out
}

// maxWarnings bounds the warnings kept for a badly damaged file.
const maxWarnings = 100

// indexWarn records a warning about an indexed line: it is saved in the
// sidecar with the index.
func (s *Session) indexWarn(w string) {
	s.warn(w)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if len(s.idxWarnings) < maxWarnings && !slices.Contains(s.idxWarnings, w) {
		s.idxWarnings = append(s.idxWarnings, w)
	}
}

// warn records a warning once.
func (s *Session) warn(w string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if len(s.warnings) >= maxWarnings {
		s.moreWarnings++
		return
	}
	for _, old := range s.warnings {
		if old == w {
			return
		}
	}
	s.warnings = append(s.warnings, w)
}

// Label returns the label of an entry ("" if none).
func (s *Session) Label(id string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.labels[id].label
}
