package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"time"
)

// The session list's summary of a large file is kept in its sidecar, so a
// listing reads the file's header line and what was appended since the
// sidecar was saved, not every message line (a 133 MB session is about
// 140k lines): the cost of finding the last prompt and the latest activity
// is paid once per change of the file, by the open that saves the index.

// listSummary is what the session list needs of the part of a file a
// sidecar covers (see readInfo for the rules).
type listSummary struct {
	entries     int    // entry records (lines without an id are not counted)
	activity    int64  // latest user or assistant message time, milliseconds
	hasActivity bool   //
	name        string // the last session_info's name
	first, last string // the first user message's text and the last's ("" when it is the first)
}

// listSummary computes the summary of s's index. Two lines are read: the
// first user message with text and the last user message after it.
func (s *Session) listSummary() listSummary {
	x := &s.idx
	ls := listSummary{entries: len(x.recs), activity: x.activity, hasActivity: x.hasActivity, name: x.name}
	firstAt := int32(len(x.recs))
	for i := range int32(len(x.recs)) {
		if r := &x.recs[i]; r.kind == kMessage && r.role == roleUser {
			if t, ok := s.userText(i); ok && t != "" {
				ls.first, firstAt = t, i
				break
			}
		}
	}
	for i := int32(len(x.recs)) - 1; i > firstAt; i-- {
		if r := &x.recs[i]; r.kind == kMessage && r.role == roleUser {
			if t, ok := s.userText(i); ok {
				ls.last = t
				break
			}
		}
	}
	return ls
}

// userText is the text of record i when the list counts it as a user
// message (userLineText).
func (s *Session) userText(i int32) (string, bool) {
	line, err := s.readLine(i)
	if err != nil {
		return "", false
	}
	return userLineText(line)
}

// userLineText is the text of a user message line as the session list
// reads it: the role named near the line's start, then decoded.
func userLineText(line []byte) (string, bool) {
	if !bytes.Contains(line[:min(len(line), 512)], quotedUser) {
		return "", false
	}
	if li, err := scanLine(line); err != nil || li.role != "user" {
		return "", false
	}
	e, err := decodeEntry(line)
	if err != nil || e.Message == nil {
		return "", false
	}
	return blocksText(e.Message.Content), true
}

func appendListSummary(b []byte, ls listSummary) []byte {
	var sec []byte
	sec = binary.AppendUvarint(sec, uint64(ls.entries))
	sec = appendBool(sec, ls.hasActivity)
	sec = binary.AppendVarint(sec, ls.activity)
	sec = appendBytes(sec, []byte(ls.name))
	sec = appendBytes(sec, []byte(ls.first))
	sec = appendBytes(sec, []byte(ls.last))
	return appendBytes(b, sec)
}

func readListSummary(r *sidecarReader) listSummary {
	sec := sidecarReader{b: r.bytes(r.count(1))}
	if r.err != nil {
		return listSummary{}
	}
	var ls listSummary
	ls.entries = int(sec.uvarint())
	ls.hasActivity = sec.bool()
	ls.activity = sec.varint()
	ls.name, ls.first, ls.last = sec.str(), sec.str(), sec.str()
	if sec.err != nil || len(sec.b) != 0 {
		r.err = errSidecar
	}
	return ls
}

// sidecarPrefix is how much of a sidecar a listing reads first: the fixed
// fields and, unless its prompts are long, the list summary.
const sidecarPrefix = 16 << 10

// listFromSidecar returns the list summary of the file f (path, stat st)
// from its sidecar, and how many bytes of the file it covers, when the
// sidecar still describes the file (the checks loadSidecar makes, without
// decoding the index).
func listFromSidecar(path string, f *os.File, st os.FileInfo) (ls listSummary, covered int64, ok bool) {
	if st.Size() < sidecarMinSize {
		return ls, 0, false
	}
	sf, err := os.Open(sidecarPath(path))
	if err != nil {
		return ls, 0, false
	}
	defer sf.Close()
	sst, err := sf.Stat()
	if err != nil || !sst.Mode().IsRegular() || sst.Mode().Perm()&0o022 != 0 || !sameOwner(st, sst) || sst.Size() > st.Size() {
		return ls, 0, false
	}
	buf := make([]byte, min(sst.Size(), sidecarPrefix))
	if _, err := io.ReadFull(sf, buf); err != nil {
		return ls, 0, false
	}
	h, ls, err := decodeSidecarHead(buf)
	if errors.Is(err, errShortHead) && int64(len(buf)) < sst.Size() {
		buf = make([]byte, sst.Size())
		if _, err := sf.ReadAt(buf, 0); err != nil {
			return ls, 0, false
		}
		h, ls, err = decodeSidecarHead(buf)
	}
	if err != nil {
		return ls, 0, false
	}
	dev, ino := inodeOf(st)
	if h.dev != dev || h.ino != ino || h.size > st.Size() {
		return ls, 0, false
	}
	if sum, err := fingerprint(f, h.size); err != nil || sum != h.sum {
		return ls, 0, false
	}
	return ls, h.size, true
}

// apply sets info from the summary (the header's fields are read from the
// file itself).
func (ls listSummary) apply(info *Info) {
	info.EntryCount = ls.entries
	info.Name = ls.name
	info.FirstMessage = ls.first
	info.LastMessage = ls.last
	if ls.hasActivity {
		info.activity = time.UnixMilli(ls.activity)
	}
}
