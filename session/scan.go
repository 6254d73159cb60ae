package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
)

// This file holds a small structural JSON scanner for session lines.
//
// Why not encoding/json: opening a session must index a 100+ MB file in a
// fraction of a second. encoding/json validates and tokenises every byte of
// every message body, which is several times slower than what indexing
// needs: the top-level "type", "id", "parentId" (and a message's "role").
// This scanner walks the top-level members of a line, skips string bodies
// with bytes.IndexByte (vectorised), and checks that brackets balance and
// match, so torn and truncated lines are always detected. It does not check
// scalars nested inside values; an entry that passes here but is not valid
// JSON fails later, when it is decoded with encoding/json, and is reported
// then. FuzzScanLine checks that every line encoding/json accepts is accepted
// here with the same fields.

var (
	errTruncated = errors.New("truncated JSON")
	errSyntax    = errors.New("invalid JSON")
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipKey returns the index just past the member key (a string) that
// opens at b[i] (b[i] == '"') and whether it holds a backslash escape. Keys
// are a few bytes: a plain loop beats IndexByte's calls.
func skipKey(b []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped, nil
		case '\\':
			escaped = true
			j++
		}
	}
	return 0, false, errTruncated
}

// skipStr returns the index just past the string value that opens at b[i]
// (b[i] == '"'). It finds the closing quote with bytes.IndexByte
// (vectorised) and does not look for escapes in the body: values skipped
// whole need not know, and the few decoded check for themselves
// (stringValue).
func skipStr(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errTruncated
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch c := b[i]; {
	case c == '"':
		return skipStr(b, i)
	case c == '{' || c == '[':
		return skipNested(b, i)
	default:
		return skipScalar(b, i)
	}
}

// skipNested skips a balanced object or array, checking that brackets match.
func skipNested(b []byte, i int) (int, error) {
	var small [32]byte
	stack := small[:0]
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, err := skipStr(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != b[j] {
				return 0, errSyntax
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errTruncated
}

// skipScalar skips true, false, null or a number, and checks it is one.
func skipScalar(b []byte, i int) (int, error) {
	j := i
	for j < len(b) {
		c := b[j]
		if c == ',' || c == '}' || c == ']' || isSpace(c) {
			break
		}
		j++
	}
	lit := b[i:j]
	switch string(lit) {
	case "true", "false", "null":
		return j, nil
	}
	if !validNumber(lit) {
		if j == len(b) {
			return 0, errTruncated
		}
		return 0, errSyntax
	}
	return j, nil
}

// validNumber reports whether s is a JSON number.
func validNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}

// member is one top-level member of a JSON object: its key (raw, between
// the quotes) and the byte range of its value.
type member struct {
	key        []byte
	keyEscaped bool
	keyStart   int // index of the key's opening quote
	start, end int // value is b[start:end]
}

// keyIs reports whether the member's key equals k, unescaping if needed.
func (m *member) keyIs(k string) bool {
	if !m.keyEscaped {
		return string(m.key) == k
	}
	var s string
	q := make([]byte, 0, len(m.key)+2)
	q = append(append(append(q, '"'), m.key...), '"')
	return json.Unmarshal(q, &s) == nil && s == k
}

// name returns the member's key, unescaped when it holds escapes (an
// allocation only then); nil when its escapes are not valid JSON. A switch
// on string(m.name()) compares without allocating.
func (m *member) name() []byte {
	if !m.keyEscaped {
		return m.key
	}
	var s string
	q := make([]byte, 0, len(m.key)+2)
	q = append(append(append(q, '"'), m.key...), '"')
	if json.Unmarshal(q, &s) != nil {
		return nil
	}
	return []byte(s)
}

// objIter walks the top-level members of the object in b.
type objIter struct {
	b []byte
	i int
}

// newObjIter starts walking the object that begins (after spaces) at b[i].
func newObjIter(b []byte, i int) (objIter, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return objIter{}, errTruncated
	}
	if b[i] != '{' {
		return objIter{}, errSyntax
	}
	return objIter{b: b, i: i + 1}, nil
}

// next reads the first member's key and colon; m.start is where its value
// begins. ok is false for an empty object, when it.i is just past it.
func (it *objIter) next() (m member, ok bool, err error) {
	b := it.b
	i := skipSpace(b, it.i)
	if i >= len(b) {
		return m, false, errTruncated
	}
	if b[i] == '}' {
		it.i = i + 1
		return m, false, nil
	}
	return it.key(i)
}

// key reads a member's key and colon at b[i].
func (it *objIter) key(i int) (m member, ok bool, err error) {
	b := it.b
	if i >= len(b) {
		return m, false, errTruncated
	}
	if b[i] != '"' {
		return m, false, errSyntax
	}
	end, esc, err := skipKey(b, i)
	if err != nil {
		return m, false, err
	}
	m.key, m.keyEscaped, m.keyStart = b[i+1:end-1], esc, i
	i = skipSpace(b, end)
	if i >= len(b) {
		return m, false, errTruncated
	}
	if b[i] != ':' {
		return m, false, errSyntax
	}
	it.i = skipSpace(b, i+1)
	m.start = it.i
	return m, true, nil
}

// following moves past the member whose value ends at end and reads the
// next member's key; ok is false after the last member (it.i is then just
// past the closing brace) or on an error.
func (it *objIter) following(end int) (m member, ok bool, err error) {
	more, err := it.after(end)
	if err != nil || !more {
		return m, false, err
	}
	return it.key(it.i)
}

// after is called with the end of the current member's value; it consumes
// the following comma or closing brace.
func (it *objIter) after(end int) (more bool, err error) {
	b := it.b
	i := skipSpace(b, end)
	if i >= len(b) {
		return false, errTruncated
	}
	switch b[i] {
	case ',':
		it.i = skipSpace(b, i+1)
		return true, nil
	case '}':
		it.i = i + 1
		return false, nil
	}
	return false, errSyntax
}

// walkObject calls fn for each top-level member of the object at b[i:],
// skipping each value, and returns the index just past the closing brace.
func walkObject(b []byte, i int, fn func(m member)) (int, error) {
	it, err := newObjIter(b, i)
	if err != nil {
		return 0, err
	}
	m, ok, err := it.next()
	for ok {
		if m.end, err = skipValue(b, m.start); err != nil {
			return 0, err
		}
		if fn != nil {
			fn(m)
		}
		m, ok, err = it.following(m.end)
	}
	if err != nil {
		return 0, err
	}
	return it.i, nil
}

// stringValue decodes v if it is a JSON string; ok is false otherwise.
func stringValue(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	return unquote(v)
}

// unquote decodes a JSON string with encoding/json (apart, so the fast
// path of stringValue does not pay for the decoded string's allocation).
func unquote(v []byte) (string, bool) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// knownString is stringValue without an allocation for the entry types,
// roles and stop reasons every line repeats (indexing a large file
// allocates per line otherwise).
func knownString(v []byte) string {
	if len(v) >= 2 && v[0] == '"' {
		switch string(v[1 : len(v)-1]) {
		case "message":
			return "message"
		case "user":
			return "user"
		case "assistant":
			return "assistant"
		case "toolResult":
			return "toolResult"
		case "stop":
			return "stop"
		case "toolUse":
			return "toolUse"
		case "custom":
			return "custom"
		}
	}
	s, _ := stringValue(v)
	return s
}

// lineInfo is what indexing needs from one entry line.
type lineInfo struct {
	typ        string
	id         string
	hasID      bool
	parent     string
	parentNull bool // parentId present and null (or absent: see hasParent)
	hasParent  bool
	role       string
	customType string
	usage      []byte      // a message's raw "usage" object, nil if none
	stopReason string      // a message's stopReason
	content    contentInfo // a message's content, as counting display items needs it
	display    bool        // a custom_message's "display" is true
	msgDisplay bool        // a message's "display" is true (a custom message)
	summary    bool        // a non-empty top-level "summary" (branch_summary)
	// activity is the entry's time in pi's "last activity" rule
	// (activityTime), in milliseconds, when hasActivity: the session list
	// keeps the latest in the sidecar.
	activity    int64
	hasActivity bool
	msgTS       []byte // while scanning: the message's raw "timestamp"
	hasContent  bool   // while scanning: the message has "content"
	// parsed is set by the parallel scan, which parsed the usage already
	// (u, cost) and passes no line: n is its length.
	parsed bool
	n      int32
	u      usageRec
	cost   llm.Cost
}

// scanLine checks the structure of one JSON line and extracts the fields the
// index needs. Only the last occurrence of a duplicated key counts, as in
// JSON.parse and encoding/json.
func scanLine(line []byte) (li lineInfo, err error) {
	it, err := newObjIter(line, 0)
	if err != nil {
		return li, fmt.Errorf("not a JSON object: %w", err)
	}
	var entryTS []byte
	m, ok, err := it.next()
	for ok {
		key := m.name()
		if string(key) == "message" && m.start < len(line) && line[m.start] == '{' {
			li.role = ""
			li.usage, li.stopReason, li.content, li.msgDisplay = nil, "", contentInfo{}, false
			li.msgTS, li.hasContent = nil, false
			m.end, err = li.walkMessage(line, m.start)
		} else {
			m.end, err = skipValue(line, m.start)
		}
		if err != nil {
			return li, err
		}
		v := line[m.start:m.end]
		switch string(key) {
		case "type":
			li.typ = knownString(v)
		case "id":
			li.id, li.hasID = stringValue(v)
		case "parentId":
			li.hasParent = true
			li.parent, _ = stringValue(v)
			li.parentNull = li.parent == ""
		case "customType":
			li.customType, _ = stringValue(v)
		case "display":
			li.display = string(v) == "true"
		case "summary":
			li.summary = len(v) > 2 && v[0] == '"'
		case "timestamp":
			entryTS = v
		}
		var more bool
		if more, err = it.after(m.end); err != nil {
			return li, err
		}
		if !more {
			break
		}
		m, ok, err = it.key(it.i)
	}
	if err != nil {
		return li, err
	}
	if rest := skipSpace(line, it.i); rest != len(line) {
		return li, fmt.Errorf("data after the object: %w", errSyntax)
	}
	if li.typ == TypeMessage && (li.role == "user" || li.role == "assistant") && li.hasContent {
		li.activity, li.hasActivity = activityMillis(li.msgTS, entryTS)
	}
	li.msgTS = nil
	return li, nil
}

// maxSplitTries bounds the candidate starts splitEntries tries on one line,
// so a long corrupt line costs linear time, not quadratic.
const maxSplitTries = 64

// entryStart is how every entry line pi and pi-lsp write begins.
var entryStart = []byte(`{"type":`)

// splitEntries finds the whole entries in a line that is not one JSON
// object: objects glued together, or a torn object followed by whole ones.
// Each piece is a byte range holding one object of a known entry type with
// an "id" that scanLine accepts (a tool call block inside a torn message has
// an id too, but not an entry type). It returns nil when there is none.
func splitEntries(line []byte) [][2]int {
	var out [][2]int
	tries := 0
	for i := 0; i < len(line) && tries < maxSplitTries; {
		j := bytes.Index(line[i:], entryStart)
		if j < 0 {
			break
		}
		start := i + j
		tries++
		if end, err := skipNested(line, start); err == nil {
			if li, err := scanLine(line[start:end]); err == nil && li.hasID && kindOf(li.typ) != kUnknown {
				out = append(out, [2]int{start, end})
				i = end
				continue
			}
		}
		i = start + 1
	}
	return out
}
