package env

import (
	"bytes"
)

// Job output limits: the ring keeps the last JobRingLines lines or
// JobRingBytes bytes, whichever is smaller; the output file keeps it all.
const (
	JobRingLines = 2000
	JobRingBytes = 50 * 1024
)

// jobRing is a job's recent output: the last maxLines lines or maxBytes
// bytes, addressed by absolute byte offsets since the job started, so that
// readers hold cursors that stay valid while the ring moves on. Not safe for
// concurrent use (the Job's mutex guards it).
type jobRing struct {
	maxLines, maxBytes int
	buf                []byte
	start              int64 // absolute offset of buf[0]
	lines              int   // '\n' in buf
}

func newJobRing(maxLines, maxBytes int) *jobRing {
	return &jobRing{maxLines: maxLines, maxBytes: maxBytes}
}

// end is the absolute offset after the last byte written.
func (r *jobRing) end() int64 { return r.start + int64(len(r.buf)) }

func (r *jobRing) write(p []byte) {
	if len(p) >= r.maxBytes {
		// Only the tail of a huge chunk can stay: skip the rest at once.
		skip := len(p) - r.maxBytes
		r.start += int64(len(r.buf)) + int64(skip)
		r.buf = append(r.buf[:0], p[skip:]...)
		r.lines = bytes.Count(r.buf, []byte{'\n'})
	} else {
		r.buf = append(r.buf, p...)
		r.lines += bytes.Count(p, []byte{'\n'})
	}
	cut := 0
	if len(r.buf) > r.maxBytes {
		cut = len(r.buf) - r.maxBytes
	}
	if extra := r.lines - r.maxLines; extra > 0 || cut > 0 {
		r.lines -= bytes.Count(r.buf[:cut], []byte{'\n'})
		// Drop whole lines until at most maxLines remain.
		for r.lines > r.maxLines {
			i := bytes.IndexByte(r.buf[cut:], '\n')
			cut += i + 1
			r.lines--
		}
	}
	if cut > 0 {
		// Drop the prefix by reslicing; copy down only once the dead space
		// before buf is as large as the limit, so each byte is copied at
		// most about once and the backing array stays about 2*maxBytes.
		r.start += int64(cut)
		r.buf = r.buf[cut:]
		if cap(r.buf) < r.maxBytes {
			r.buf = append(make([]byte, 0, 2*r.maxBytes), r.buf...)
		}
	}
}

// read returns the output after the absolute offset after (clamped to what
// the ring still holds), how many bytes before it were dropped, and the
// offset to read from next.
func (r *jobRing) read(after int64) (data []byte, dropped int64, next int64) {
	if after < r.start {
		dropped = r.start - after
		after = r.start
	}
	if after > r.end() {
		after = r.end()
	}
	return append([]byte(nil), r.buf[after-r.start:]...), dropped, r.end()
}

// tailLines returns the last n lines the ring holds (all of it when n <= 0).
func (r *jobRing) tailLines(n int) []byte {
	b := r.buf
	if n > 0 {
		end := len(b)
		if end > 0 && b[end-1] == '\n' {
			end--
		}
		for i := end - 1; i >= 0; i-- {
			if b[i] == '\n' {
				n--
				if n == 0 {
					b = b[i+1:]
					break
				}
			}
		}
	}
	return append([]byte(nil), b...)
}
