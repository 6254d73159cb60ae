package llm

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestStripJSONComments(t *testing.T) {
	in := "{\"a\": \"// not a comment /* nor this */\", // trailing\n /* block\n spanning */ \"b\": \"\\\"//\"}"
	out := stripJSONComments([]byte(in))
	var v map[string]string
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if v["a"] != "// not a comment /* nor this */" || v["b"] != "\"//" {
		t.Fatalf("values %v", v)
	}
	if len(out) != len(in) || bytes.Count(out, []byte("\n")) != 2 {
		t.Fatalf("positions not kept: %q", out)
	}
}

// FuzzModelsJSON: any file content gives a catalog (possibly with an
// error) without panicking; comment stripping keeps every byte position;
// every listed model has an id, a provider and a base URL.
func FuzzModelsJSON(f *testing.F) {
	for _, s := range []string{
		`{"providers":{"x":{"baseUrl":"http://h","apiKey":"K","models":[{"id":"m","contextWindow":5}]}}}`,
		`{"providers":{"openai":{"baseUrl":"http://p","modelOverrides":{"gpt-4o":{"name":"n","compat":{"a":1}}},"models":[{"id":"gpt-4o"}]}}}`,
		"{/* c */\"providers\":{}} // x", `{"providers":{"x":{"models":[{"id":""}]}}}`, `[]`, `{"providers":null}`, `/*`, `"//"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := stripJSONComments(data); len(got) != len(data) {
			t.Fatalf("length changed: %d → %d", len(data), len(got))
		}
		c := buildCatalog(data, "models.json", map[string]string{"K": "v"})
		for _, e := range c.entries {
			if e.model.ID == "" || e.model.Provider == "" || e.model.BaseURL == "" {
				t.Fatalf("incomplete model %+v (err %v)", e.model, c.err)
			}
		}
	})
}
