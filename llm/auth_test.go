package llm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadAuthFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auth.json")
	body := `{"openai": {"type": "api_key", "key": "sk-auth-openai-123456"},
 "anthropic": {"type": "oauth", "access": "x", "refresh": "y", "expires": 1},
 "groq": {"type": "api_key", "key": "!echo from-command"},
 "broken": {"type": "api_key"}}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadAuthFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.Keys["openai"] != "sk-auth-openai-123456" || a.Keys["groq"] != "!echo from-command" || len(a.Keys) != 2 {
		t.Fatalf("keys: %v", a.Keys)
	}
	joined := strings.Join(a.Warnings, "\n")
	for _, want := range []string{"readable by others (mode 0644)", `"anthropic" is an OAuth login`, `"broken" has no usable API key`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings miss %q:\n%s", want, joined)
		}
	}
	if s := a.Secrets(); len(s) != 1 || s[0] != "PI_AUTH_OPENAI_KEY=sk-auth-openai-123456" {
		t.Fatalf("secrets: %v", s)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ = ReadAuthFile(path)
	if strings.Contains(strings.Join(a.Warnings, "\n"), "readable by others") {
		t.Fatalf("0600 warned: %v", a.Warnings)
	}
	if a, err := ReadAuthFile(filepath.Join(dir, "missing.json")); err != nil || a.Keys != nil {
		t.Fatalf("missing file: %v %v", a, err)
	}
	if err := os.WriteFile(path, []byte(`{"openai": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAuthFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("broken file: %v", err)
	}
}

func TestAuthKeyOrder(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models.json")
	body := `{"providers": {
  "lit": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "from-models-json", "models": [{"id": "m"}]},
  "envref": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "ENVREF_KEY", "models": [{"id": "m"}]},
  "bare": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "models": [{"id": "m"}]}
}}`
	if err := os.WriteFile(models, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	auth := map[string]string{"openai": "auth-openai", "lit": "auth-lit", "envref": "auth-envref", "bare": "auth-bare", "google": "auth-google"}
	ctx := context.Background()
	key := func(environ []string, ref string) string {
		t.Helper()
		r := NewRegistry(RegistryOptions{Path: models, Environ: environ, AuthKeys: auth})
		m, err := r.Find(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		return m.APIKey
	}
	for _, tc := range []struct {
		environ []string
		ref     string
		want    string
	}{
		{[]string{"OPENAI_API_KEY=env-openai"}, "openai/gpt-4o", "env-openai"}, // environment first
		{nil, "openai/gpt-4o", "auth-openai"},                                  // then auth.json
		{nil, "gemini/gemini-2.5-flash", "auth-google"},                        // pi's name for gemini
		{nil, "lit/m", "auth-lit"},                                             // before models.json's apiKey
		{[]string{"ENVREF_KEY=env-ref"}, "envref/m", "env-ref"},                // the variable apiKey names is the environment
		{nil, "envref/m", "auth-envref"},
		{nil, "bare/m", "auth-bare"}, // a provider with no key at all
	} {
		if got := key(append([]string{"HOME=" + dir}, tc.environ...), tc.ref); got != tc.want {
			t.Errorf("%s with %v: key %q, want %q", tc.ref, tc.environ, got, tc.want)
		}
	}
	// Without auth.json, openai is not authenticated.
	r := NewRegistry(RegistryOptions{Path: models, Environ: []string{"HOME=" + dir}})
	if _, err := r.Find(ctx, "openai/gpt-4o"); err == nil {
		t.Fatal("openai without a key resolved")
	}
}
