package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// Saving the index sidecar: after a full scan (in the background), and as
// the file grows past what the saved sidecar covers.

// saveSidecar writes the index of s (just loaded, covering s.size bytes)
// beside the file. It is best effort: a directory that is not writable
// just means the next open scans again.
func (s *Session) saveSidecar() error {
	if s.size < sidecarMinSize || s.needNL || len(s.idx.pending) > 0 {
		return nil
	}
	st, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("session: sidecar: %w", err)
	}
	sum, err := fingerprint(s.f, s.size)
	if err != nil {
		return fmt.Errorf("session: sidecar: %w", err)
	}
	dev, ino := inodeOf(st)
	s.wmu.Lock()
	warnings := append([]string(nil), s.idxWarnings...)
	s.wmu.Unlock()
	st2 := sidecarState{size: s.size, dev: dev, ino: ino, sum: sum, fileVersion: s.fileVersion, header: s.header, lineNo: s.lineNo, idx: s.idx, warnings: warnings, list: s.listSummary()}
	data, err := encodeSidecar(&st2)
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".idx-*")
	if err != nil {
		return fmt.Errorf("session: sidecar: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("session: sidecar: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("session: sidecar: %w", err)
	}
	if err := os.Rename(tmp.Name(), sidecarPath(s.path)); err != nil {
		return fmt.Errorf("session: sidecar: %w", err)
	}
	s.savedSize = s.size
	return nil
}

// saveAfterOpen saves the index a full scan built (saveDue) in the
// background, so an editor's first open of a large session waits for the
// scan, not for encoding and writing the index as well. The save holds the
// read lock (readers go on; an append waits for it); Close waits for it.
func (s *Session) saveAfterOpen() {
	if !s.saveDue {
		return
	}
	s.saveDue = false
	s.saves.Add(1)
	go func() {
		defer s.saves.Done()
		s.mu.RLock()
		defer s.mu.RUnlock()
		if s.closed || s.savedSize >= s.size {
			return
		}
		_ = s.saveSidecar() // best effort: the next open scans again
	}()
}

// keepSidecarCurrent saves the index again when the file grew past what
// the sidecar covers: by at least sidecarRescan bytes, or by anything when
// final (the session is closing). So a session pi-lsp wrote opens from its
// sidecar, scanning at most what was appended since the last save. Called
// with s.mu held for writing.
func (s *Session) keepSidecarCurrent(final bool) {
	grown := s.size - s.savedSize
	if grown <= 0 || (!final && grown < sidecarRescan) {
		return
	}
	_ = s.saveSidecar() // best effort: the next open scans from the saved offset
}
