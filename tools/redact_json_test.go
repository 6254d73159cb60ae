package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	r := NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"})
	tests := []struct {
		name, in, want string
	}{
		{"no secret keeps the bytes", `{"a": 1, "b":["x", "y<&>"] ,"c":null}`, `{"a": 1, "b":["x", "y<&>"] ,"c":null}`},
		{"env value", `{"output":"key=s3cr3t-value-4711\n"}`, `{"output":"key=••••••\n"}`},
		{"key shape in an array", `["sk-abcdefghijklmnopqrstu", 2]`, `["••••••", 2]`},
		{"keys are kept", `{"s3cr3t-value-4711":"s3cr3t-value-4711"}`, `{"s3cr3t-value-4711":"••••••"}`},
		{"escaped arguments stay valid JSON",
			`{"args":"{\"command\":\"echo \\\"MY_TOKEN=hunter2hunter2\\\"\"}"}`,
			`{"args":"{\"command\":\"echo \\\"MY_TOKEN=••••••\\\"\"}"}`},
		{"no HTML escaping", `{"t":"a < b && c > d s3cr3t-value-4711"}`, `{"t":"a < b && c > d ••••••"}`},
		{"escaped key", `{"a\"b":"s3cr3t-value-4711"}`, `{"a\"b":"••••••"}`},
		{"broken inner JSON is masked as text", `{"args":"{\"command\":\"echo s3cr3t-value-4711"}`, `{"args":"{\"command\":\"echo ••••••"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.RedactJSON([]byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("RedactJSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Fatalf("not valid JSON: %s", got)
			}
		})
	}
}

func TestRedactJSONExempt(t *testing.T) {
	r := NewRedactor([]string{"DB_PASSWORD=hunter22hunter22"})
	in := `{"method":"fs/writeTextFile","params":{"path":"hunter22hunter22.txt","content":"pw=hunter22hunter22","list":["hunter22hunter22"]}}`
	var paths [][]string
	got, err := r.RedactJSON([]byte(in), func(p []string) bool {
		paths = append(paths, append([]string(nil), p...))
		return len(p) == 2 && p[0] == "params" && p[1] == "content"
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"method":"fs/writeTextFile","params":{"path":"••••••.txt","content":"pw=hunter22hunter22","list":["••••••"]}}`
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	wantPaths := [][]string{{"method"}, {"params", "path"}, {"params", "content"}, {"params", "list", "[]"}}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Fatalf("paths %q, want %q", paths, wantPaths)
	}
}

func TestRedactJSONRefusesInvalid(t *testing.T) {
	r := NewRedactor([]string{"MY_TOKEN=supersecretvalue"})
	got, err := r.RedactJSON([]byte(`{"a":"supersecretvalue"`), nil)
	if err == nil || got != nil {
		t.Fatalf("got %q, %v; want nil and an error", got, err)
	}
}

// FuzzRedactJSON: the result of valid JSON is valid JSON with the same shape
// and no env secret left in any decoded string.
func FuzzRedactJSON(f *testing.F) {
	const secret = "supersecretvalue"
	for _, s := range []string{`{"a":"supersecretvalue"}`, `["x",{"k":"{\"c\":\"supersecretvalue\"}"}]`, `"MY_TOKEN=abcdefgh"`, `1`, `{"a\u0022":"\u0073upersecretvalue"}`} {
		f.Add([]byte(s))
	}
	r := NewRedactor([]string{"MY_TOKEN=" + secret})
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := r.RedactJSON(doc, nil)
		if !json.Valid(doc) {
			if err == nil || got != nil {
				t.Fatalf("invalid input accepted: %q", got)
			}
			return
		}
		if err != nil || !json.Valid(got) {
			t.Fatalf("RedactJSON(%q) = %q, %v", doc, got, err)
		}
		var v any
		_ = json.Unmarshal(got, &v)
		var walk func(any, int)
		walk = func(v any, depth int) {
			switch x := v.(type) {
			case string:
				if strings.Contains(x, secret) {
					var inner any
					if depth < maxNestedJSON && json.Unmarshal([]byte(x), &inner) == nil {
						walk(inner, depth+1)
						return
					}
					t.Fatalf("secret left in %q (from %q)", x, doc)
				}
			case []any:
				for _, e := range x {
					walk(e, depth)
				}
			case map[string]any:
				for _, e := range x {
					walk(e, depth)
				}
			}
		}
		walk(v, 0)
	})
}

func TestRedactJSONLines(t *testing.T) {
	r := NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t<&>value"})
	// A session file as session/export returns it: the secret is escaped
	// inside it (\u003c), so only a decode finds it.
	file := "{\"type\":\"session\"}\n{\"message\":{\"content\":\"key=s3cr3t\\u003c\\u0026\\u003evalue\"}}\n"
	doc, _ := json.Marshal(map[string]string{"text": file})
	got, err := r.RedactJSON(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Text string }
	if err := json.Unmarshal(got, &out); err != nil {
		t.Fatal(err)
	}
	want := "{\"type\":\"session\"}\n{\"message\":{\"content\":\"key=••••••\"}}\n"
	if out.Text != want {
		t.Fatalf("got %q\nwant %q", out.Text, want)
	}
}
