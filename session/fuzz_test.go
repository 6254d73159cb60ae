package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScanLine checks the structural line scanner against encoding/json:
// every object encoding/json accepts is accepted with the same fields, every
// truncation of it (a torn write) is rejected, and field surgery keeps the
// line valid. Nothing may panic on any input.
func FuzzScanLine(f *testing.F) {
	seeds := []string{
		testHeader,
		msgLine("aa000001", "", "user", "hi \"quoted\" \\ back\\slash"),
		msgLine("aa000002", "aa000001", "assistant", "ü € 😀 \u2028"),
		entryLine("custom", "c1", "p1", `"customType":"x","data":{"a":[1,2,{"b":"}]"}],"n":-1.5e3,"t":true,"f":false,"z":null}`),
		entryLine("label", "l1", "p", `"targetId":"t","label":"lbl"`),
		`{"type":"message","id":"x","id":"y","parentId":"p","parentId":null}`,
		`{"\u0074ype":"message","id":"\u0041"}`,
		`  {"type" : "leaf" , "id":"a" }  `,
		`{}`, `[]`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":[1,2}`, `{"a":"\"}`, "\x00",
		`{"type":"message","message":{"content":"x","role":"toolResult"},"id":"q"}`,
		`{"type":"message","message":"not an object","id":"q"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		li, err := scanLine(line)
		var m map[string]json.RawMessage
		if json.Unmarshal(line, &m) != nil || m == nil { // "null" unmarshals to a nil map
			return // not a JSON object: the scanner may accept or reject it
		}
		if err != nil {
			t.Fatalf("valid object rejected: %v\n%q", err, line)
		}
		str := func(k string) string { return rawString(m[k]) }
		if li.typ != str("type") || li.id != str("id") || li.parent != str("parentId") || li.customType != str("customType") {
			t.Fatalf("fields differ: %+v vs %v", li, m)
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(m["message"], &msg) == nil && msg != nil && li.role != rawString(msg["role"]) {
			t.Fatalf("role %q vs %q", li.role, msg["role"])
		}
		if _, hp := m["parentId"]; hp != li.hasParent {
			t.Fatalf("hasParent %v", li.hasParent)
		}
		if len(line) <= 4096 {
			end := bytes.LastIndexByte(line, '}')
			for k := 0; k < end; k++ {
				if _, err := scanLine(line[:k]); err == nil {
					t.Fatalf("torn prefix accepted: %q", line[:k])
				}
			}
		}
		out, err := setMember(line, "parentId", []byte(`"zz"`))
		if err != nil {
			t.Fatalf("setMember: %v", err)
		}
		var m2 map[string]json.RawMessage
		if err := json.Unmarshal(out, &m2); err != nil || rawString(m2["parentId"]) != "zz" || len(m2) != len(m)+btoi(m["parentId"] == nil) {
			t.Fatalf("setMember gave %q (%v)", out, err)
		}
		out, err = deleteMember(line, "type")
		if err != nil {
			t.Fatalf("deleteMember: %v", err)
		}
		var m3 map[string]json.RawMessage
		if err := json.Unmarshal(out, &m3); err != nil || m3["type"] != nil || len(m3) != len(m)-btoi(m["type"] != nil) {
			t.Fatalf("deleteMember gave %q (%v)", out, err)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzTextPrefix checks the preview unquoter against encoding/json on short
// strings (control characters become spaces) and that nothing panics on
// arbitrary tree lines.
func FuzzTextPrefix(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\" \\ \/ \u00e9 \ud83d\ude00"`, `"\ud83d"`, `"\u12"`, `"\`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		_, _, _, _ = nodeFields(kMessage, v)
		_, _ = contentPreview(v)
		var s string
		if len(v) > previewBytes/2 || json.Unmarshal(v, &s) != nil || bytes.IndexByte(v, '"') != 0 || v[len(v)-1] != '"' {
			_ = textPrefix(v)
			return
		}
		want := strings.Map(func(r rune) rune {
			if r < 0x20 {
				return ' '
			}
			return r
		}, s)
		if got := textPrefix(v); got != want && utf8.ValidString(s) {
			t.Fatalf("textPrefix(%s) = %q, want %q", v, got, want)
		}
	})
}
