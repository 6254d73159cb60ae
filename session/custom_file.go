package session

import "encoding/json"

// LatestCustomInFile returns the data of the last custom entry of customType
// appended to the file, on any branch. LatestCustom looks only at the current
// branch; this is for state that belongs to the session rather than to a
// point in its conversation, such as the "always allow" grants: a navigate to
// before the entry that recorded them must not take them back.
func (s *Session) LatestCustomInFile(customType string) (json.RawMessage, bool) {
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
	for i := int32(len(x.recs)) - 1; i >= 0; i-- {
		if r := &x.recs[i]; r.kind == kCustom && r.aux == want {
			if e := s.decodeOrWarn(i); e != nil {
				return e.Data, true
			}
			// A broken entry: the one before it counts.
		}
	}
	return nil, false
}
