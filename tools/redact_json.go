package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// ErrNotJSON is returned by RedactJSON for a document that is not valid JSON.
var ErrNotJSON = errors.New("redact: not a valid JSON document")

// maxNestedJSON bounds how deep RedactJSON follows JSON documents inside
// string values (arguments inside a message inside an export, say); deeper
// strings are masked as plain text.
const maxNestedJSON = 4

// RedactJSON returns doc, one JSON document, with the secrets in its string
// values masked. Object keys, numbers and the layout are kept byte for byte;
// only a string value that holds a secret is rewritten. A string value that
// is itself a JSON object or array (tool-call arguments carried as text) is
// masked inside, so it stays valid JSON: `"{\"command\":\"echo
// \\\"MY_TOKEN=…\\\"\"}"` loses the token, not its quotes; so is each
// line of a string of JSON lines (an exported session file).
//
// exempt, when not nil, is asked for every string value with the keys that
// lead to it ("[]" for an array element); when it answers true the value
// is kept as is. RedactJSON fails only on a doc that is not valid JSON, and
// then it returns nil: it never hands back unmasked text.
func (r *Redactor) RedactJSON(doc []byte, exempt func(path []string) bool) ([]byte, error) {
	if !json.Valid(doc) {
		return nil, ErrNotJSON
	}
	if r == nil {
		return doc, nil
	}
	return r.redactJSON(doc, exempt, 0), nil
}

// redactJSON masks the string values of doc, which must be valid JSON.
func (r *Redactor) redactJSON(doc []byte, exempt func(path []string) bool, depth int) []byte {
	var out []byte // nil while nothing changed
	last := 0      // doc[last:] is not yet copied into out
	var path []string
	var inObject []bool
	expectKey := false
	for i := 0; i < len(doc); {
		switch doc[i] {
		case '{':
			path, inObject, expectKey = append(path, ""), append(inObject, true), true
			i++
		case '[':
			path, inObject, expectKey = append(path, "[]"), append(inObject, false), false
			i++
		case '}', ']':
			path, inObject, expectKey = path[:len(path)-1], inObject[:len(inObject)-1], false
			i++
		case ',':
			expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			i++
		case '"':
			end := stringEnd(doc, i)
			lit := doc[i:end]
			switch {
			case expectKey:
				path[len(path)-1] = decodeString(lit)
				expectKey = false
			case exempt != nil && exempt(path):
			default:
				if masked, changed := r.redactLiteral(lit, depth); changed {
					out = append(out, doc[last:i]...)
					out = append(out, masked...)
					last = end
				}
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// redactLiteral masks one JSON string literal (quotes included). It reports
// whether anything was masked, with the new literal.
func (r *Redactor) redactLiteral(lit []byte, depth int) ([]byte, bool) {
	s := decodeString(lit)
	var masked string
	switch {
	case depth < maxNestedJSON && isJSONDoc(s):
		masked = string(r.redactJSON([]byte(s), nil, depth+1))
	case depth < maxNestedJSON && isJSONLines(s):
		lines := strings.SplitAfter(s, "\n")
		for i, l := range lines {
			if isJSONDoc(l) {
				lines[i] = string(r.redactJSON([]byte(l), nil, depth+1))
			}
		}
		masked = strings.Join(lines, "")
	default:
		masked = r.Redact(s)
	}
	if masked == s {
		return nil, false
	}
	return encodeString(masked), true
}

// isJSONDoc reports whether s is a JSON object or array (space around it
// allowed).
func isJSONDoc(s string) bool {
	t := strings.TrimSpace(s)
	return len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}

// isJSONLines reports whether s is JSON lines (a session file, say): more
// than one line, each empty or a JSON object or array.
func isJSONLines(s string) bool {
	if !strings.Contains(strings.TrimSpace(s), "\n") {
		return false
	}
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" && !isJSONDoc(l) {
			return false
		}
	}
	return true
}

// stringEnd returns the index just past the string literal that starts at
// doc[i] (a '"'); doc is valid JSON.
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// decodeString decodes a valid JSON string literal.
func decodeString(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	_ = json.Unmarshal(lit, &s) // valid by construction
	return s
}

// encodeString encodes s as a JSON string literal without HTML escaping.
func encodeString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
