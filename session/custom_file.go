package session

import (
	"encoding/json"
	"iter"
)

// LatestCustomInFile returns the data of the last custom entry of customType
// appended to the file, on any branch. LatestCustom looks only at the current
// branch; this is for state that belongs to the session rather than to a
// point in its conversation, such as the "always allow" grants: a navigate to
// before the entry that recorded them must not take them back.
func (s *Session) LatestCustomInFile(customType string) (json.RawMessage, bool) {
	return s.latestCustom(customType, (*index).newestFirst)
}

// latestCustom returns the data of the first custom entry of customType that
// walk yields and that decodes; a broken entry is warned about and the next
// one counts. walk runs under the read lock.
func (s *Session) latestCustom(customType string, walk func(*index) iter.Seq[int32]) (json.RawMessage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, false
	}
	x := &s.idx
	want, ok := x.strIdx[customType]
	if !ok {
		return nil, false
	}
	for i := range walk(x) {
		if r := &x.recs[i]; r.kind == kCustom && r.aux == want {
			if e := s.decodeOrWarn(i); e != nil {
				return e.Data, true
			}
		}
	}
	return nil, false
}

// newestFirst yields every record, the last appended first.
func (x *index) newestFirst() iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for i := int32(len(x.recs)) - 1; i >= 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

// leafToRoot yields the current branch, the leaf first. The step bound stops
// a walk that a corrupt parent link would make endless.
func (x *index) leafToRoot() iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for i, steps := x.leaf, 0; i != none && steps <= len(x.recs); i, steps = x.recs[i].parent, steps+1 {
			if !yield(i) {
				return
			}
		}
	}
}
