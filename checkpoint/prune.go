package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// PruneGrace: manifests and blobs younger than this are never pruned, so
// a checkpoint taken just before its session entry is written survives.
const PruneGrace = time.Hour

// Ref records that the session file sessionPath references checkpoint id.
// Prune keeps a checkpoint while a session that references it exists.
func (s *Store) Ref(sessionPath, id string) error {
	sum := sha256.Sum256([]byte(sessionPath))
	p := s.path("refs", hex.EncodeToString(sum[:12]))
	_, err := os.Stat(p)
	f, oerr := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if oerr != nil {
		return fmt.Errorf("checkpoint: ref: %w", oerr)
	}
	var b bytes.Buffer
	if errors.Is(err, fs.ErrNotExist) {
		b.WriteString(sessionPath + "\n") // the first line names the session
	}
	b.WriteString(id + "\n")
	_, werr := f.Write(b.Bytes())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("checkpoint: ref: %w", werr)
	}
	return nil
}

// PruneStats says what Prune removed.
type PruneStats struct {
	Manifests, Trees, Blobs int
	Bytes                   int64
}

// Prune removes the checkpoints no existing session references (the
// sessions' files were deleted) and the blobs no remaining checkpoint
// uses; anything younger than PruneGrace stays.
func (s *Store) Prune(ctx context.Context) (PruneStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st PruneStats
	cutoff := s.opts.Now().Add(-PruneGrace)
	live := map[string]bool{}
	refs, err := os.ReadDir(s.path("refs"))
	if err != nil {
		return st, fmt.Errorf("checkpoint: prune: %w", err)
	}
	for _, r := range refs {
		p := s.path("refs", r.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		if !sc.Scan() {
			continue
		}
		if _, err := os.Stat(sc.Text()); errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(p) // the session is gone
			continue
		}
		for sc.Scan() {
			live[strings.TrimSpace(sc.Text())] = true
		}
	}
	manifests, err := os.ReadDir(s.path("manifests"))
	if err != nil {
		return st, fmt.Errorf("checkpoint: prune: %w", err)
	}
	liveBlobs, liveTrees := map[string]bool{}, map[string]bool{}
	for _, m := range manifests {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("checkpoint: prune: %w", err)
		}
		id := m.Name()
		info, err := m.Info()
		if err != nil {
			continue
		}
		if !live[id] && info.ModTime().Before(cutoff) {
			if os.Remove(s.path("manifests", id)) == nil {
				st.Manifests++
			}
			continue
		}
		man, err := s.manifest(id, liveTrees)
		if err != nil {
			continue
		}
		for _, f := range man.Files {
			liveBlobs[f.Hash] = true
		}
	}
	err = filepath.WalkDir(s.path("objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		hash := filepath.Base(filepath.Dir(p)) + d.Name()
		if liveBlobs[hash] {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if os.Remove(p) == nil {
			st.Blobs++
			st.Bytes += info.Size()
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("checkpoint: prune: %w", err)
	}
	err = filepath.WalkDir(s.path("trees"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		id := filepath.Base(filepath.Dir(p)) + d.Name()
		if liveTrees[id] {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if os.Remove(p) == nil {
			st.Trees++
			st.Bytes += info.Size()
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("checkpoint: prune: %w", err)
	}
	if st.Blobs > 0 {
		// The stat cache may name a removed blob: forget it all, the next
		// snapshot hashes every file once.
		s.cache.reset()
		if _, err := s.cache.save(); err != nil {
			return st, fmt.Errorf("checkpoint: prune: %w", err)
		}
	}
	_ = os.WriteFile(s.path("pruned"), nil, 0o600)
	_ = os.Chtimes(s.path("pruned"), s.opts.Now(), s.opts.Now())
	return st, nil
}

// PruneDue reports whether the last Prune was more than a day ago.
func (s *Store) PruneDue() bool {
	info, err := os.Stat(s.path("pruned"))
	return err != nil || s.opts.Now().Sub(info.ModTime()) > 24*time.Hour
}

// DiskUsage is the bytes the store's files take (blobs, manifests, cache).
func (s *Store) DiskUsage() (int64, error) {
	var n int64
	err := filepath.WalkDir(s.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	return n, err
}
