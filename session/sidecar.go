package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"syscall"

	"github.com/pi-lsp/pi-lsp/llm"
)

// The index sidecar. Indexing a 133 MB session reads every byte of it;
// the index it produces is about 3% of that. After a full scan of a large
// file, the index is saved beside it as "<file>.idx" (0600), and the next
// open reads that instead of the file, then scans only what was appended
// since. The session file itself is never changed: it stays pi's
// append-only JSONL, and deleting the sidecar only costs one full scan.
//
// A sidecar is used only when it still describes the file: same inode, the
// file at least as long as the part the sidecar covers, and a hash of the
// covered part's head, tail and 64 evenly spaced samples unchanged. Any
// doubt (an unknown format version, a short or corrupt sidecar, a sidecar
// not owned by the file's owner or writable by others) falls back to the
// scan, which rewrites it.

const (
	sidecarMagic = "PILSPIDX"
	// 2: usage records carry their recorded cost; 3: records carry their
	// display item and tool call counts (items.go); 4: the session list's
	// summary follows the fingerprint (list_sidecar.go).
	sidecarVersion = 4
	// sidecarMinSize is the smallest file worth a sidecar: below it the
	// scan costs a few milliseconds.
	sidecarMinSize = 4 << 20
	// sidecarRescan is how much appended data makes an open rewrite the
	// sidecar, so the catch-up scan stays short.
	sidecarRescan = 4 << 20
	sampleCount   = 64
	sampleSize    = 1024
	edgeSize      = 64 << 10
)

// sidecarPath is where the index of the session at path is saved.
func sidecarPath(path string) string { return path + ".idx" }

// fingerprint hashes the first size bytes of f: the head, the tail and
// evenly spaced samples in between.
func fingerprint(f io.ReaderAt, size int64) ([32]byte, error) {
	h := sha256.New()
	buf := make([]byte, edgeSize)
	read := func(off int64, n int) error {
		if off < 0 {
			n += int(off)
			off = 0
		}
		if off+int64(n) > size {
			n = int(size - off)
		}
		if n <= 0 {
			return nil
		}
		b := buf[:n]
		if _, err := f.ReadAt(b, off); err != nil {
			return fmt.Errorf("fingerprint: %w", err)
		}
		var hdr [16]byte
		binary.LittleEndian.PutUint64(hdr[:8], uint64(off))
		binary.LittleEndian.PutUint64(hdr[8:], uint64(n))
		h.Write(hdr[:])
		h.Write(b)
		return nil
	}
	if err := read(0, edgeSize); err != nil {
		return [32]byte{}, err
	}
	for k := int64(1); k < sampleCount; k++ {
		if err := read(size*k/sampleCount, sampleSize); err != nil {
			return [32]byte{}, err
		}
	}
	if err := read(size-edgeSize, edgeSize); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// inodeOf returns the device and inode of a file (0, 0 where unknown).
func inodeOf(st os.FileInfo) (dev, ino uint64) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Dev), sys.Ino //nolint:unconvert // Dev is not uint64 everywhere
	}
	return 0, 0
}

// sidecarState is everything load leaves in a Session, as saved.
type sidecarState struct {
	size        int64
	dev, ino    uint64
	sum         [32]byte
	fileVersion int
	header      Header
	lineNo      int
	idx         index
	warnings    []string
	list        listSummary
}

// loadSidecar restores the index from the sidecar when it still describes
// the file; ok is false when the file must be scanned.
func (s *Session) loadSidecar() (ok bool) {
	st, err := s.f.Stat()
	if err != nil || st.Size() < sidecarMinSize {
		return false
	}
	sf, err := os.Open(sidecarPath(s.path))
	if err != nil {
		return false
	}
	defer sf.Close()
	sst, err := sf.Stat()
	if err != nil || !sst.Mode().IsRegular() || sst.Mode().Perm()&0o022 != 0 || !sameOwner(st, sst) || sst.Size() > st.Size() {
		return false
	}
	// Mapped, not read: decoding copies out what it keeps (the records and
	// one string of all ids), so the 3-4 MB of the file never sit on the
	// heap.
	data, unmap, err := mapFile(sf, sst.Size())
	if err != nil {
		return false
	}
	got, err := decodeMapped(data)
	unmap()
	if err != nil {
		return false
	}
	dev, ino := inodeOf(st)
	if got.dev != dev || got.ino != ino || got.size > st.Size() {
		return false
	}
	if sum, err := fingerprint(s.f, got.size); err != nil || sum != got.sum {
		return false
	}
	s.size, s.needNL, s.lineNo, s.sawHeader = got.size, false, got.lineNo, true
	s.savedSize = got.size
	s.fileVersion, s.header, s.idx = got.fileVersion, got.header, got.idx
	for _, w := range got.warnings {
		s.indexWarn(w)
	}
	return true
}

// decodeMapped is decodeSidecar over mapped bytes: a sidecar truncated
// under the mapping faults on access, which becomes an error instead of a
// crash.
func decodeMapped(data []byte) (st *sidecarState, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			st, err = nil, errSidecar
		}
	}()
	return decodeSidecar(data)
}

// sameOwner reports whether two files have the same owner (true where
// owners are unknown).
func sameOwner(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return !ok1 || !ok2 || sa.Uid == sb.Uid
}

// encodeSidecar serializes a sidecar. Records keep only their parent:
// children and siblings are relinked in file order on load.
func encodeSidecar(st *sidecarState) ([]byte, error) {
	hb, err := json.Marshal(st.header)
	if err != nil {
		return nil, fmt.Errorf("session: sidecar: %w", err)
	}
	x := &st.idx
	// Sized once: growing a multi-megabyte buffer by doubling would copy it
	// and leave the copies to the collector while a large first open is at
	// its peak memory. A record takes 15-16 bytes beside its id in a long
	// session (offset step 2, length 2, parent 1, kind and role 2, aux 3,
	// line 3, items and calls 2, the id's length 1); 20 leaves a margin
	// (capacity never written costs no memory).
	size := 256 + len(hb) + len(st.list.name) + len(st.list.first) + len(st.list.last) + 32*len(x.usage) + 40*len(x.costs) + 20*len(x.recs) + len(x.ids)
	for _, w := range st.warnings {
		size += 10 + len(w)
	}
	for _, v := range x.strs {
		size += 10 + len(v)
	}
	for id, l := range x.labels {
		size += 30 + len(id) + len(l.label) + len(l.ts)
	}
	b := make([]byte, 0, size)
	b = append(b, sidecarMagic...)
	b = binary.AppendUvarint(b, sidecarVersion)
	b = binary.AppendUvarint(b, uint64(st.size))
	b = binary.AppendUvarint(b, st.dev)
	b = binary.AppendUvarint(b, st.ino)
	b = append(b, st.sum[:]...)
	b = appendListSummary(b, st.list)
	b = binary.AppendUvarint(b, uint64(st.fileVersion))
	b = appendBytes(b, hb)
	b = binary.AppendUvarint(b, uint64(st.lineNo))
	b = appendBool(b, x.linear)
	b = appendBytes(b, []byte(x.name))
	b = binary.AppendVarint(b, int64(x.leaf))
	b = binary.AppendUvarint(b, uint64(len(st.warnings)))
	for _, w := range st.warnings {
		b = appendBytes(b, []byte(w))
	}
	b = binary.AppendUvarint(b, uint64(len(x.strs)))
	for _, s := range x.strs {
		b = appendBytes(b, []byte(s))
	}
	b = binary.AppendUvarint(b, uint64(len(x.labels)))
	for id, l := range x.labels {
		b = appendBytes(b, []byte(id))
		b = appendBytes(b, []byte(l.label))
		b = appendBytes(b, []byte(l.ts))
	}
	b = binary.AppendUvarint(b, uint64(len(x.usage)))
	for _, u := range x.usage {
		for _, v := range [...]int32{u.input, u.output, u.cacheRead, u.cacheWrite, u.total} {
			b = binary.AppendVarint(b, int64(v))
		}
		b = appendBool(b, u.bad)
		b = binary.AppendVarint(b, int64(u.cost))
	}
	b = binary.AppendUvarint(b, uint64(len(x.costs)))
	for _, c := range x.costs {
		for _, v := range [...]float64{c.Input, c.Output, c.CacheRead, c.CacheWrite, c.Total} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(x.recs)))
	// All ids first, so the loader makes them one string.
	ids := 0
	for i := range x.recs {
		ids += int(x.recs[i].idLen)
	}
	b = binary.AppendUvarint(b, uint64(ids))
	for i := range x.recs {
		b = binary.AppendUvarint(b, uint64(x.recs[i].idLen))
	}
	for i := range x.recs {
		b = append(b, x.idBytes(int32(i))...)
	}
	var prevOff int64
	for i := range x.recs {
		r := &x.recs[i]
		if r.off < prevOff {
			return nil, errors.New("session: sidecar: offsets out of order")
		}
		b = binary.AppendUvarint(b, uint64(r.off-prevOff))
		prevOff = r.off
		b = binary.AppendUvarint(b, uint64(r.n))
		b = binary.AppendVarint(b, int64(i)-int64(r.parent)) // 1 = the previous record; i+1 = none (-1)
		b = append(b, byte(r.kind), r.role)
		b = binary.AppendVarint(b, int64(r.aux))
		b = binary.AppendUvarint(b, uint64(r.line))
		b = binary.AppendUvarint(b, uint64(r.items))
		b = binary.AppendUvarint(b, uint64(r.calls))
	}
	return b, nil
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

var (
	errSidecar = errors.New("session: bad sidecar")
	// errShortHead: the bytes given end inside the sidecar's head.
	errShortHead = errors.New("session: sidecar head cut short")
)

// head reads a sidecar's fixed fields and list summary from data and
// leaves r on what follows.
func (r *sidecarReader) head(data []byte) (*sidecarState, error) {
	if !bytes.HasPrefix(data, []byte(sidecarMagic)) {
		return nil, errSidecar
	}
	r.b = data[len(sidecarMagic):]
	if r.uvarint() != sidecarVersion {
		return nil, errSidecar
	}
	st := &sidecarState{}
	st.size = int64(r.uvarint())
	st.dev, st.ino = r.uvarint(), r.uvarint()
	copy(st.sum[:], r.bytes(32))
	if r.err != nil {
		return nil, errShortHead
	}
	// The section's length is read before its bytes: a length past the
	// end of data means the head was cut short, not a bad sidecar.
	save := r.b
	if n := r.uvarint(); r.err == nil && n > uint64(len(r.b)) {
		return nil, errShortHead
	}
	r.b = save
	st.list = readListSummary(r)
	if r.err != nil {
		return nil, r.err
	}
	return st, nil
}

// decodeSidecarHead reads only a sidecar's head (see head).
func decodeSidecarHead(data []byte) (*sidecarState, listSummary, error) {
	r := &sidecarReader{}
	st, err := r.head(data)
	if err != nil {
		return nil, listSummary{}, err
	}
	return st, st.list, nil
}

// sidecarReader reads a sidecar; the first error sticks.
type sidecarReader struct {
	b   []byte
	err error
}

func (r *sidecarReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errSidecar
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sidecarReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errSidecar
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length that must fit in what is left (each item takes at
// least min bytes).
func (r *sidecarReader) count(min int) int {
	v := r.uvarint()
	if r.err == nil && v > uint64(len(r.b)/max(min, 1)) {
		r.err = errSidecar
		return 0
	}
	return int(v)
}

func (r *sidecarReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errSidecar
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *sidecarReader) str() string { return string(r.bytes(r.count(1))) }

func (r *sidecarReader) bool() bool {
	v := r.bytes(1)
	return len(v) == 1 && v[0] == 1
}

// int32 reads a varint that must lie in [lo, hi].
func (r *sidecarReader) int32(lo, hi int64) int32 {
	v := r.varint()
	if r.err == nil && (v < lo || v > hi) {
		r.err = errSidecar
	}
	return int32(v)
}

// decodeSidecar parses a sidecar and checks that every record and link is
// in range, so a damaged sidecar is rejected rather than trusted.
func decodeSidecar(data []byte) (*sidecarState, error) {
	r := &sidecarReader{}
	st, err := r.head(data)
	if err != nil {
		return nil, err
	}
	st.fileVersion = int(r.uvarint())
	hb := r.bytes(r.count(1))
	st.lineNo = int(r.uvarint())
	x := newIndex(r.bool())
	x.name = r.str()
	x.activity, x.hasActivity = st.list.activity, st.list.hasActivity
	leaf := r.varint()
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		st.warnings = append(st.warnings, r.str())
	}
	for n := r.count(1); n > 0 && r.err == nil; n-- {
		x.intern(r.str())
	}
	for n := r.count(3); n > 0 && r.err == nil; n-- {
		id := r.str()
		x.labels[id] = labelVal{label: r.str(), ts: r.str()}
	}
	if n := r.count(6); r.err == nil {
		x.usage = makeHuge[usageRec](n, n)
		for i := range x.usage {
			u := &x.usage[i]
			u.input, u.output, u.cacheRead = r.int32(0, 1<<31-1), r.int32(0, 1<<31-1), r.int32(0, 1<<31-1)
			u.cacheWrite, u.total = r.int32(0, 1<<31-1), r.int32(0, 1<<31-1)
			u.bad = r.bool()
			u.cost = r.int32(0, 1<<31-1)
		}
	}
	if n := r.count(40); r.err == nil {
		x.costs = makeHuge[llm.Cost](n, n)
		for i := range x.costs {
			var v [5]float64
			for j := range v {
				b8 := r.bytes(8)
				if r.err != nil {
					return nil, r.err
				}
				v[j] = math.Float64frombits(binary.LittleEndian.Uint64(b8))
			}
			c := llm.Cost{Input: v[0], Output: v[1], CacheRead: v[2], CacheWrite: v[3], Total: v[4]}
			x.costs[i] = c
			x.cost = x.cost.Add(c)
		}
		for _, u := range x.usage {
			if int(u.cost) > len(x.costs) {
				return nil, errSidecar
			}
		}
	}
	n := r.count(9)
	idBytes := r.count(1)
	if r.err != nil {
		return nil, r.err
	}
	// The id lengths, then the ids: check the lengths in one pass, then
	// read them again beside the records (lr) instead of keeping a slice.
	lr := sidecarReader{b: r.b}
	total := 0
	for range n {
		l := int(r.uvarint())
		total += l
		if l > idBytes || total > idBytes {
			return nil, errSidecar
		}
	}
	if total != idBytes {
		return nil, errSidecar
	}
	// One copy into the arena: the records point into it by offset.
	x.ids = makeHuge[byte](idBytes, idBytes)
	copy(x.ids, r.bytes(idBytes))
	if r.err != nil {
		return nil, r.err
	}
	x.recs = makeHuge[rec](n, n)
	var off int64
	pos := 0
	for i := range x.recs {
		rc := &x.recs[i]
		l := int(lr.uvarint())
		rc.idOff, rc.idLen = uint32(pos), uint32(l)
		pos += l
		off += int64(r.uvarint())
		rc.off = off
		ln := r.uvarint()
		back := r.varint()
		kr := r.bytes(2)
		rc.aux = r.int32(-1<<31, 1<<31-1)
		line := r.uvarint()
		items, calls := r.uvarint(), r.uvarint()
		if r.err != nil {
			return nil, r.err
		}
		if off < 0 || off > st.size || ln > uint64(st.size-off) || back == 0 || back > int64(i)+1 || int64(i)-back >= int64(n) || line > 1<<31-1 || kr[0] > byte(kLeaf) || items > maxItems || calls > maxItems {
			return nil, errSidecar
		}
		rc.n, rc.line = int32(ln), int32(line)
		rc.items, rc.calls = uint16(items), uint16(calls)
		rc.parent = int32(int64(i) - back) // none when back == i+1
		rc.kind, rc.role = kind(kr[0]), kr[1]
		rc.child, rc.sibling = none, none
		switch {
		case rc.kind == kUnknown || rc.kind == kCustom || rc.kind == kCustomMessage:
			if rc.aux < 0 || int(rc.aux) >= len(x.strs) {
				return nil, errSidecar
			}
		case rc.kind == kMessage && rc.role == roleAssistant:
			if rc.aux < 0 || int(rc.aux) > len(x.usage) {
				return nil, errSidecar
			}
		}
	}
	if len(r.b) != 0 || leaf < int64(none) || leaf >= int64(n) {
		return nil, errSidecar
	}
	x.leaf = int32(leaf)
	for i := len(x.recs) - 1; i >= 0; i-- {
		if p := x.recs[i].parent; p != none {
			x.recs[i].sibling = x.recs[p].child
			x.recs[p].child = int32(i)
		}
	}
	if err := json.Unmarshal(hb, &st.header); err != nil {
		return nil, errSidecar
	}
	st.idx = x
	return st, nil
}
