package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pi-lsp/pi-lsp/llm"
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

// FuzzParseUsage checks the usage and cost reader against encoding/json: on
// any usage object encoding/json decodes, the counters and the cost agree
// (odd values count 0, as the reader documents), and nothing panics on any
// input.
func FuzzParseUsage(f *testing.F) {
	for _, s := range []string{
		`{"input":1200,"output":300,"cacheRead":0,"cacheWrite":0,"totalTokens":1500,"cost":{"input":0.0036,"output":0.0045,"cacheRead":0,"cacheWrite":0,"total":0.0081}}`,
		`{"input":1,"cost":{"total":1e-7}}`, `{"cost":null}`, `{"cost":{"input":-1,"total":"x"}}`, `{"cost":[1]}`,
		`{}`, `null`, `{"cost":{"input":1e400}}`, `{"input":1.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var c llm.Cost
		u := parseUsage(raw, "", &c)
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return
		}
		var cm map[string]json.RawMessage
		if json.Unmarshal(m["cost"], &cm) != nil || cm == nil {
			if c != (llm.Cost{}) {
				t.Fatalf("cost %+v from a usage without a cost object: %q", c, raw)
			}
			return
		}
		want := func(k string) float64 {
			var f float64
			if json.Unmarshal(cm[k], &f) != nil || f < 0 {
				return 0
			}
			return f
		}
		if c.Input != want("input") || c.Output != want("output") || c.CacheRead != want("cacheRead") ||
			c.CacheWrite != want("cacheWrite") || c.Total != want("total") {
			t.Fatalf("cost %+v from %q", c, raw)
		}
		if u.input < 0 || u.output < 0 || u.total < 0 {
			t.Fatalf("negative counters %+v", u)
		}
	})
}
