package session

import (
	"bytes"
	"fmt"
)

// Field surgery on raw JSON objects. Fork, clone and migration must change
// one or two members of a stored line (parentId, id, a message's role)
// while keeping every other byte, including fields this package does not
// know; decoding into a map and re-encoding would reorder and reformat them.

// members returns the top-level members of the object b.
func members(b []byte) ([]member, int, error) {
	var ms []member
	end, err := walkObject(b, 0, func(m member) { ms = append(ms, m) })
	if err != nil {
		return nil, 0, err
	}
	return ms, end, nil
}

// getMember returns the raw value of the last member named key.
func getMember(b []byte, key string) ([]byte, bool) {
	ms, _, err := members(b)
	if err != nil {
		return nil, false
	}
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].keyIs(key) {
			return b[ms[k].start:ms[k].end], true
		}
	}
	return nil, false
}

// setMember returns b with member key set to the raw JSON value val: the
// last member of that name is replaced in place, or a new member is added
// at the end of the object.
func setMember(b []byte, key string, val []byte) ([]byte, error) {
	ms, end, err := members(b)
	if err != nil {
		return nil, fmt.Errorf("session: set %q: %w", key, err)
	}
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].keyIs(key) {
			out := make([]byte, 0, len(b)+len(val))
			out = append(out, b[:ms[k].start]...)
			out = append(out, val...)
			return append(out, b[ms[k].end:]...), nil
		}
	}
	closeAt := end - 1 // the closing brace
	out := make([]byte, 0, len(b)+len(key)+len(val)+4)
	out = append(out, b[:closeAt]...)
	if len(ms) > 0 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	out = append(out, val...)
	return append(out, b[closeAt:]...), nil
}

// deleteMember returns b without any member named key.
func deleteMember(b []byte, key string) ([]byte, error) {
	for {
		ms, _, err := members(b)
		if err != nil {
			return nil, fmt.Errorf("session: delete %q: %w", key, err)
		}
		k := -1
		for j := range ms {
			if ms[j].keyIs(key) {
				k = j
				break
			}
		}
		if k < 0 {
			return b, nil
		}
		from, to := ms[k].keyStart, ms[k].end
		switch {
		case k+1 < len(ms): // remove up to the next key
			to = ms[k+1].keyStart
		case k > 0: // last member: remove from the previous value's end
			from = ms[k-1].end
		}
		b = append(append([]byte(nil), b[:from]...), b[to:]...)
	}
}

// quote returns s as a JSON string.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := newEncoder(&buf)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(buf.Bytes(), "\n")
}
