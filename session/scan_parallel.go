package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// The parallel full scan. Indexing a large file is reading it and finding
// each line's members (scanLine); linking the records is a small part. So
// a full scan of a large file cuts it into segments of segmentSize at line
// starts, parses them on every core (at most segmentsInFlight segments
// ahead, so the parsed lines held stay a few megabytes), and adds the
// parsed lines to the index in file order on the calling goroutine. A
// line the parse cannot finish alone (the header, a line that is not one
// object, a label, session_info or leaf entry, whose bodies the index
// reads) is read again and indexed by the sequential path, so both paths
// give the same index (TestParallelScanGivesTheSequentialIndex).

const (
	segmentSize      = 2 << 20
	segmentsInFlight = 3
	// parallelMin is the smallest file scanned in parallel.
	parallelMin = 2 * segmentSize
	// parallelProcs is the fewest cores the parallel scan runs on. In round
	// 8, on two idle cores, it bought a few percent of wall time for half
	// again the CPU and a peak RSS over 80 MB, so it needed four. Round 9
	// made the segments reuse their buffers (22 MB allocated per 133 MB
	// scan, not 79 MB) and the line scanner cheaper; measured idle (load
	// 1.4, docs/benchmarks.md), the 133 MB first open then took 204–256 ms
	// to the first frame in parallel against 310–351 ms sequential, for
	// about the same CPU (360–461 ms against 364–410 ms) and peak RSS
	// (62–65 MB against 62 MB). So two cores are enough.
	parallelProcs = 2
)

// pline is one parsed line of a segment.
type pline struct {
	off      int64
	n        int32 // length without the newline
	complete bool  // ends with a newline
	slow     bool  // index it on the sequential path
	blank    bool
	li       lineInfo // usage already parsed into li.u and li.cost
}

// segment is the parse of one segment of the file.
type segment struct {
	lines []pline
	rd    *bufio.Reader // its read buffer, for the next segment
	err   error
}

// scanParallel is scan(ctx, 0, false) over a file of size bytes.
func (s *Session) scanParallel(ctx context.Context, size int64) error {
	nseg := int((size + segmentSize - 1) / segmentSize)
	results := make([]chan segment, nseg)
	for k := range results {
		results[k] = make(chan segment, 1)
	}
	tokens := make(chan struct{}, segmentsInFlight)
	// Parsed lines' buffers go back to the workers once merged, so a scan
	// holds a few of them instead of allocating one per segment (tens of
	// megabytes of garbage over a large file).
	free := make(chan segment, segmentsInFlight+1)
	done := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), nseg)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-done:
					return
				}
				k := int(next.Add(1) - 1)
				if k >= nseg {
					return
				}
				end := int64(k+1) * segmentSize
				if k == nseg-1 {
					end = math.MaxInt64 // the last segment reads to the end
				}
				var buf segment
				select {
				case buf = <-free:
				default:
				}
				results[k] <- s.parseSegment(int64(k)*segmentSize, end, buf)
			}
		}()
	}
	defer func() {
		close(done)
		wg.Wait()
	}()
	var off int64
	lastNL := true
	for k := range nseg {
		var seg segment
		select {
		case seg = <-results[k]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-tokens
		if seg.err != nil {
			return fmt.Errorf("session: read %s: %w", s.path, seg.err)
		}
		for i := range seg.lines {
			pl := &seg.lines[i]
			s.lineNo++
			lastNL = pl.complete
			off = pl.off + int64(pl.n)
			if pl.complete {
				off++
			}
			if pl.blank {
				continue
			}
			if s.lineNo%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := s.mergeLine(pl); err != nil {
				return err
			}
		}
		select {
		case free <- segment{lines: seg.lines[:0], rd: seg.rd}:
		default:
		}
	}
	s.stats.scannedBytes += off
	s.size, s.needNL = off, !lastNL
	return nil
}

// mergeLine indexes one parsed line.
func (s *Session) mergeLine(pl *pline) error {
	if pl.slow || !s.sawHeader || pl.li.typ == TypeSession {
		body := make([]byte, pl.n)
		if _, err := s.f.ReadAt(body, pl.off); err != nil {
			return fmt.Errorf("session: read %s: %w", s.path, err)
		}
		return s.scanLine(body, pl.off, !pl.complete)
	}
	pl.li.parsed, pl.li.n = true, pl.n
	return s.indexLine(pl.li, nil, pl.off)
}

// parseSegment parses the lines that start in [from, to), reusing the
// buffers of buf (a merged segment) when it has them.
func (s *Session) parseSegment(from, to int64, buf segment) segment {
	start := from
	if from > 0 {
		start = from - 1 // a line starts at from if the byte before it is a newline
	}
	src := io.NewSectionReader(s.f, start, math.MaxInt64-start)
	r := buf.rd
	if r == nil {
		r = bufio.NewReaderSize(src, 256<<10)
	} else {
		r.Reset(src)
	}
	off := start
	if from > 0 {
		// Skip the end of the line that started in the segment before.
		for {
			chunk, err := r.ReadSlice('\n')
			off += int64(len(chunk))
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				if err == io.EOF {
					return segment{}
				}
				return segment{err: err}
			}
		}
	}
	seg := segment{lines: buf.lines, rd: r}
	if seg.lines == nil {
		seg.lines = make([]pline, 0, min(to-from, segmentSize)/900+16)
	}
	var long []byte
	for off < to {
		chunk, err := r.ReadSlice('\n')
		line := chunk
		if err == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			for err == bufio.ErrBufferFull {
				chunk, err = r.ReadSlice('\n')
				long = append(long, chunk...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return segment{err: err}
		}
		if len(line) == 0 {
			break
		}
		complete := line[len(line)-1] == '\n'
		body := bytes.TrimSuffix(line, []byte("\n"))
		pl := pline{off: off, n: int32(len(body)), complete: complete}
		switch {
		case len(bytes.TrimSpace(body)) == 0:
			pl.blank = true
		default:
			li, err := scanLine(body)
			pl.li = li
			switch k := kindOf(li.typ); {
			case err != nil, k == kLabel, k == kSessionInfo, k == kLeaf:
				pl.slow = true
			default:
				if k == kMessage && li.role == "assistant" {
					pl.li.u = parseUsage(li.usage, li.stopReason, &pl.li.cost)
				}
			}
			// usage points into the read buffer, which moves on; scanLine's
			// strings are copies.
			pl.li.usage = nil
		}
		seg.lines = append(seg.lines, pl)
		off += int64(len(line))
		if err == io.EOF {
			break
		}
	}
	return seg
}

// fullScan indexes the file from its start: in parallel when it is large.
func (s *Session) fullScan(ctx context.Context) error {
	st, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("session: stat %s: %w", s.path, err)
	}
	small := st.Size() < parallelMin || runtime.GOMAXPROCS(0) < parallelProcs
	if s.sequential || (small && !s.parallel) {
		return s.scan(ctx, 0, false)
	}
	return s.scanParallel(ctx, st.Size())
}
