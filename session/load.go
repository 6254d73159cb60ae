package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/llm"
)

// load indexes the whole file (called with the file freshly opened).
func (s *Session) load(ctx context.Context) error {
	s.lineNo, s.sawHeader, s.size, s.needNL, s.savedSize = 0, false, 0, false, 0
	s.cache = msgCache{}
	s.planMu.Lock()
	s.planKey = planKey{}
	s.planMu.Unlock()
	s.loadedFromSidecar = s.loadSidecar()
	if s.loadedFromSidecar {
		// The saved index covers the file up to s.size: scan what was
		// appended since, and save again when that was a lot.
		from := s.size
		if err := s.catchUp(ctx, false); err != nil {
			return err
		}
		if s.size-from >= sidecarRescan {
			_ = s.saveSidecar() // best effort
		}
		return nil
	}
	s.stats.fullScans++
	if err := s.fullScan(ctx); err != nil {
		return err
	}
	if !s.sawHeader {
		return fmt.Errorf("session: %s: empty file: %w", s.path, ErrNotSession)
	}
	for _, w := range s.idx.finish() {
		s.indexWarn(filepath.Base(s.path) + ": " + w)
	}
	// The next open reads the index instead of the file: it is saved once
	// this open is done (saveAfterOpen), off the first open's path.
	s.saveDue = true
	return nil
}

// catchUp indexes lines another process appended since the last scan (pi
// does not take pi-lsp's lock). With completeOnly, a last line without its
// newline is left for later: its writer may still be writing it.
func (s *Session) catchUp(ctx context.Context, completeOnly bool) error {
	st, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("session: stat %s: %w", s.path, err)
	}
	switch {
	case st.Size() == s.size:
		return nil
	case st.Size() < s.size:
		return fmt.Errorf("session: %s shrank from %d to %d bytes behind our back", s.path, s.size, st.Size())
	}
	first := int32(len(s.idx.recs))
	if err := s.scan(ctx, s.size, completeOnly); err != nil {
		return err
	}
	for i := first; i < int32(len(s.idx.recs)); i++ {
		if pid, ok := s.idx.pending[i]; ok {
			if p, ok := s.idx.lookup(pid); ok && p != i {
				s.idx.recs[i].parent = p
			}
			delete(s.idx.pending, i)
		}
		s.idx.link(i)
	}
	return nil
}

// Refresh indexes entries appended to the file by another process since
// the session was opened (for read-only viewers of a live session).
func (s *Session) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.catchUp(ctx, true)
}

// scan reads and indexes lines from byte offset from to the end of the file.
func (s *Session) scan(ctx context.Context, from int64, completeOnly bool) error {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, from, math.MaxInt64-from), 256<<10)
	var (
		off    = from
		long   []byte
		inLong bool
		lastNL = !s.needNL
	)
	for {
		chunk, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			inLong = true
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("session: read %s: %w", s.path, err)
		}
		line := chunk
		if inLong {
			long = append(long, chunk...)
			line = long
		}
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			if !complete && completeOnly {
				break
			}
			s.lineNo++
			lastNL = complete
			if s.lineNo%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := s.scanLine(bytes.TrimSuffix(line, []byte("\n")), off, err == io.EOF); err != nil {
				return err
			}
			off += int64(len(line))
		}
		long, inLong = long[:0], false
		if err == io.EOF {
			break
		}
	}
	s.stats.scannedBytes += off - from
	s.size, s.needNL = off, !lastNL
	return nil
}

// scanLine handles one line of the file.
func (s *Session) scanLine(body []byte, off int64, last bool) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !s.sawHeader {
		h, ok := decodeHeader(body)
		if !ok {
			return fmt.Errorf("session: %s: line %d is not a session header: %w", s.path, s.lineNo, ErrNotSession)
		}
		s.sawHeader = true
		s.fileVersion = h.Version
		h.Version = max(h.Version, CurrentVersion)
		s.header = h
		s.idx = newIndex(s.fileVersion < 2)
		if st, err := s.f.Stat(); err == nil && st.Size() > 1<<20 {
			// Entries average about 1 KB (short turns a little less): size
			// the index once instead of growing it through a large file.
			// Capacity the file does not fill is never touched, so it costs
			// address space, not memory.
			hint := int(st.Size() / 800)
			s.idx.recs = makeHuge[rec](0, hint)
			s.idx.ids = makeHuge[byte](0, 8*hint) // pi's ids are 8 hex digits
			// About half the entries of a long session are answers, and
			// most answers record a cost: grown by appends, these two
			// would copy several megabytes and leave them to the collector.
			s.idx.usage = makeHuge[usageRec](0, hint/2)
			s.idx.costs = makeHuge[llm.Cost](0, hint/2)
			s.scanSize = st.Size()
		}
		return nil
	}
	li, err := scanLine(body)
	if err != nil {
		if pieces := splitEntries(body); len(pieces) > 0 {
			return s.scanPieces(body, off, pieces)
		}
		what := "corrupt line"
		if last {
			what = "torn or corrupt last line"
		}
		s.indexWarn(fmt.Sprintf("%s: line %d: %s (%d bytes) skipped: %v", filepath.Base(s.path), s.lineNo, what, len(body), err))
		return nil
	}
	return s.indexLine(li, body, off)
}

// scanPieces indexes the whole entries found in a line that is not one JSON
// object: entries glued together (a missing newline), or a torn entry with
// the next one written right after it.
func (s *Session) scanPieces(body []byte, off int64, pieces [][2]int) error {
	kept := 0
	for _, p := range pieces {
		kept += p[1] - p[0]
	}
	w := fmt.Sprintf("%s: line %d: %d entries glued on one line were split", filepath.Base(s.path), s.lineNo, len(pieces))
	if dropped := len(bytes.TrimSpace(body)) - kept; dropped > 0 {
		w = fmt.Sprintf("%s: line %d: %d bytes of a torn entry dropped; %d whole entries on the same line were kept", filepath.Base(s.path), s.lineNo, dropped, len(pieces))
	}
	s.indexWarn(w)
	for _, p := range pieces {
		piece := body[p[0]:p[1]]
		li, err := scanLine(piece)
		if err != nil {
			continue // splitEntries checked it
		}
		if err := s.indexLine(li, piece, off+int64(p[0])); err != nil {
			return err
		}
	}
	return nil
}

// indexLine adds one scanned entry line to the index.
func (s *Session) indexLine(li lineInfo, body []byte, off int64) error {
	if li.typ == TypeSession {
		return nil // a repeated header (written by some pi versions): not an entry
	}
	if !s.idx.linear && (!li.hasID || li.id == "") {
		s.indexWarn(fmt.Sprintf("%s: line %d: entry without an id skipped", filepath.Base(s.path), s.lineNo))
		return nil
	}
	if x := &s.idx; len(x.recs) == cap(x.recs) && s.scanSize > off && off > 0 {
		// The hint was short: reserve for the rest of the file at the
		// entries' size so far, once, rather than growing by a quarter at a
		// time (each copy of a 100k-record index is garbage of several MB).
		want := int(float64(len(x.recs))*float64(s.scanSize)/float64(off)*1.05) + 64
		x.recs = append(make([]rec, 0, max(want, len(x.recs)+64)), x.recs...)
		if len(x.recs) > 0 {
			per := len(x.ids)/len(x.recs) + 1
			x.ids = append(make([]byte, 0, max(per*cap(x.recs), len(x.ids)+64)), x.ids...)
		}
	}
	w := s.idx.add(li, body, off)
	if n := len(s.idx.recs); n > 0 && s.idx.recs[n-1].off == off {
		s.idx.recs[n-1].line = int32(s.lineNo)
	}
	if w != "" {
		s.indexWarn(fmt.Sprintf("%s: line %d: %s", filepath.Base(s.path), s.lineNo, w))
	}
	return nil
}
