package compaction

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// testdata/serialize_pi.txt was produced by pi 0.73.1 itself:
// serializeConversation(convertToLlm(messages)) on serialize_messages.json.
func TestSerializeConversationMatchesPi(t *testing.T) {
	raw, err := os.ReadFile("testdata/serialize_messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []llm.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/serialize_pi.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := SerializeConversation(msgs)
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs:\n got %q\nwant %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("length differs: got %d lines, want %d", len(gl), len(wl))
	}
}

func TestTruncateForSummary(t *testing.T) {
	tests := []struct {
		name, in, want string
		max            int
	}{
		{"short", "abc", "abc", 3},
		{"ascii", "abcdef", "abc\n\n[... 3 more characters truncated]", 3},
		{"surrogate pairs count twice", "😀😀😀", "😀\n\n[... 4 more characters truncated]", 2},
		{"pair straddling the limit is dropped whole", "a😀b", "a\n\n[... 2 more characters truncated]", 2},
	}
	for _, tt := range tests {
		if got := truncateForSummary(tt.in, tt.max); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFormatToolCall(t *testing.T) {
	tests := []struct{ args, want string }{
		{``, `f()`},
		{`{}`, `f()`},
		{`not json`, `f()`},
		{`[1,2]`, `f()`},
		{`{"a":1,"a":2,"b":3}`, `f(a=2, b=3)`},
		{`{"x":1e400}`, `f(x=null)`},
		{`{"n":[100,0.1,1e-6,1.5e-7,12e20,1e20,1.234e22,-3,123e-20,5e-324,1.7976931348623157e308]}`, `f(n=[100,0.1,0.000001,1.5e-7,1.2e+21,100000000000000000000,1.234e+22,-3,1.23e-18,5e-324,1.7976931348623157e+308])`},
		{`{"4294967295":1,"4294967294":2,"01":3,"1":4}`, `f(1=4, 4294967294=2, 4294967295=1, 01=3)`},
		{"{\"u\":\"\\u2028\\ud83d\\ude00\\u001f\"}", "f(u=\"\u2028😀\\u001f\")"},
	}
	for _, tt := range tests {
		if got := formatToolCall("f", []byte(tt.args)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.args, got, tt.want)
		}
	}
}

// FuzzJSStringify: any valid JSON parses, and JSON.stringify's output is
// valid JSON with the same value.
func FuzzJSStringify(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"x\u0000"`, `1e21`, `{"1":true,"0":false}`, `[`, `{"a":1}x`, `-0.0`, `{"k":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJS(data)
		if !json.Valid(data) {
			return // may or may not parse; must not panic
		}
		if err != nil {
			t.Fatalf("valid JSON %q rejected: %v", data, err)
		}
		var sb strings.Builder
		v.stringify(&sb)
		out := sb.String()
		if !json.Valid([]byte(out)) {
			t.Fatalf("invalid output %q for %q", out, data)
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal([]byte(out), &b) != nil {
			return // numbers out of float64 range: JSON.stringify writes null
		}
		if !sameJSON(a, b) {
			t.Fatalf("value changed: %s -> %s", data, out)
		}
	})
}

// sameJSON compares decoded JSON values; numbers compare as float64 (so -0
// equals 0, as JSON.stringify writes it).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if !sameJSON(v, y[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}
