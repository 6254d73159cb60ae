package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

var ctx = context.Background()

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func refs(ms []llm.ModelInfo, authenticatedOnly bool) []string {
	var out []string
	for _, m := range ms {
		if !authenticatedOnly || m.Authenticated {
			out = append(out, m.Model.Ref())
		}
	}
	return out
}

func TestBuiltinsAndNoUsableModel(t *testing.T) {
	home := t.TempDir() // no ~/.pi/agent/models.json there
	r := llm.NewRegistry(llm.RegistryOptions{Environ: []string{"HOME=" + home}})
	if r.Path() != filepath.Join(home, ".pi/agent/models.json") {
		t.Fatalf("path %q", r.Path())
	}
	ms, err := r.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	providers := map[string]bool{}
	for _, m := range ms {
		providers[m.Model.Provider] = true
		if m.Model.BaseURL == "" || m.Model.ContextWindow == 0 || m.Model.MaxTokens == 0 || m.Model.API != "openai-completions" || m.Model.APIKey != "" {
			t.Fatalf("incomplete builtin %+v", m.Model)
		}
	}
	for _, p := range []string{"openai", "openrouter", "deepseek", "groq", "gemini", "ollama"} {
		if !providers[p] {
			t.Errorf("builtin provider %s missing", p)
		}
	}
	if got := refs(ms, true); len(got) == 0 || !strings.HasPrefix(got[0], "ollama/") {
		t.Fatalf("authenticated without keys: %v", got)
	}
	_, err = r.Default(ctx)
	if !errors.Is(err, llm.ErrNoModel) {
		t.Fatalf("default = %v", err)
	}
	for _, want := range []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "GROQ_API_KEY", "GEMINI_API_KEY", "$PI_LSP_MODELS", ".pi/agent/models.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	_, err = r.Find(ctx, "openai/gpt-4o")
	if !errors.Is(err, llm.ErrNoModel) || !strings.Contains(err.Error(), "$OPENAI_API_KEY") {
		t.Fatalf("find without key = %v", err)
	}
	m, err := r.Find(ctx, "ollama/llama3.1:8b")
	if err != nil || m.BaseURL != "http://localhost:11434/v1" || m.APIKey != "" {
		t.Fatalf("ollama = %+v %v", m, err)
	}
}

func TestBuiltinKeysFromEnvironment(t *testing.T) {
	r := llm.NewRegistry(llm.RegistryOptions{Environ: []string{"HOME=" + t.TempDir(), "GROQ_API_KEY=gsk-1", "GEMINI_API_KEY=g-2", "OLLAMA_HOST=10.0.0.5:1234"}})
	m, err := r.Default(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Ref() != "groq/moonshotai/kimi-k2-instruct-0905" || m.APIKey != "gsk-1" || m.BaseURL != "https://api.groq.com/openai/v1" {
		t.Fatalf("default %+v", m)
	}
	g, err := r.Find(ctx, "gemini-2.5-pro")
	if err != nil || g.APIKey != "g-2" || !strings.Contains(string(g.Compat), `"supportsDeveloperRole":false`) {
		t.Fatalf("gemini %+v %v", g, err)
	}
	ps, _ := r.Providers(ctx)
	status := map[string]bool{}
	for _, p := range ps {
		status[p.Name] = p.Authenticated
		if p.Name == "ollama" && p.BaseURL != "http://10.0.0.5:1234/v1" {
			t.Fatalf("ollama url %q", p.BaseURL)
		}
		if p.Name == "groq" && (p.KeyEnv != "GROQ_API_KEY" || !p.Builtin || p.FromFile || p.Models != 4) {
			t.Fatalf("groq info %+v", p)
		}
	}
	want := map[string]bool{"openai": false, "openrouter": false, "deepseek": false, "groq": true, "gemini": true, "ollama": true}
	if !reflect.DeepEqual(status, want) {
		t.Fatalf("auth status %v", status)
	}
}

const modelsJSON = `{
  // comments are allowed, as in pi
  "providers": {
    "local": {
      "baseUrl": "http://127.0.0.1:8080/v1", /* a vLLM */
      "api": "openai-completions",
      "apiKey": "LOCAL_KEY",
      "compat": {"supportsDeveloperRole": false, "maxTokensField": "max_tokens"},
      "headers": {"X-Team": "!echo team-42", "X-Literal": "plain"},
      "models": [
        {"id": "qwen-coder", "name": "Qwen Coder", "contextWindow": 32768, "reasoning": true,
         "compat": {"maxTokensField": "max_completion_tokens"}, "cost": {"input": 1}},
        {"id": "tiny"}
      ]
    },
    "cmdkey": {
      "baseUrl": "http://127.0.0.1:9090/v1",
      "apiKey": "!printf 'from-%s' command",
      "models": [{"id": "tiny"}]
    },
    "openai": {
      "baseUrl": "https://proxy.example.com/v1",
      "modelOverrides": {"gpt-4o": {"name": "GPT-4o (proxy)", "contextWindow": 64000}},
      "models": [{"id": "gpt-4o-mini", "contextWindow": 1000}, {"id": "my-finetune"}]
    },
    "claude": {
      "baseUrl": "https://api.anthropic.com", "api": "anthropic-messages", "apiKey": "sk-ant-literal",
      "models": [{"id": "claude-sonnet-4"}]
    }
  }
}`

func TestModelsJSON(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "models.json", modelsJSON)
	env := []string{"HOME=" + dir, "OPENAI_API_KEY=sk-openai"}
	r := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: env})
	ms, err := r.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := refs(ms, false)
	wantFirst := []string{"local/qwen-coder", "local/tiny", "cmdkey/tiny", "openai/gpt-4o-mini", "openai/my-finetune"}
	if !reflect.DeepEqual(got[:5], wantFirst) {
		t.Fatalf("order %v", got[:8])
	}
	byRef := map[string]llm.ModelInfo{}
	for _, m := range ms {
		byRef[m.Model.Ref()] = m
	}
	if _, ok := byRef["claude/claude-sonnet-4"]; ok {
		t.Fatal("a model of an unsupported api is listed")
	}
	if byRef["local/qwen-coder"].Authenticated || !byRef["cmdkey/tiny"].Authenticated || !byRef["openai/my-finetune"].Authenticated {
		t.Fatalf("auth: %+v", byRef)
	}
	q := byRef["local/qwen-coder"].Model
	var compat map[string]any
	_ = json.Unmarshal(q.Compat, &compat)
	if q.Name != "Qwen Coder" || q.ContextWindow != 32768 || q.MaxTokens != 16384 || !q.Reasoning || q.Cost.Input != 1 ||
		!reflect.DeepEqual(compat, map[string]any{"supportsDeveloperRole": false, "maxTokensField": "max_completion_tokens"}) {
		t.Fatalf("qwen %+v compat %v", q, compat)
	}
	if tiny := byRef["local/tiny"].Model; tiny.Name != "tiny" || tiny.ContextWindow != 128000 || !reflect.DeepEqual(tiny.Input, []string{"text"}) {
		t.Fatalf("defaults %+v", tiny)
	}
	gpt4o := byRef["openai/gpt-4o"].Model
	if gpt4o.Name != "GPT-4o (proxy)" || gpt4o.ContextWindow != 64000 || gpt4o.BaseURL != "https://proxy.example.com/v1" {
		t.Fatalf("override %+v", gpt4o)
	}
	if mini := byRef["openai/gpt-4o-mini"].Model; mini.ContextWindow != 1000 || mini.Name != "gpt-4o-mini" {
		t.Fatalf("upsert %+v", mini)
	}

	// local needs $LOCAL_KEY, so the first authenticated models.json model
	// is cmdkey's, whose key a command prints.
	d, err := r.Default(ctx)
	if err != nil || d.Ref() != "cmdkey/tiny" || d.APIKey != "from-command" {
		t.Fatalf("default %+v %v", d, err)
	}
	_, err = r.Find(ctx, "local/qwen-coder")
	if !errors.Is(err, llm.ErrNoModel) || !strings.Contains(err.Error(), "$LOCAL_KEY") {
		t.Fatalf("find without LOCAL_KEY = %v", err)
	}

	r2 := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: append(env, "LOCAL_KEY=lk")})
	q2, err := r2.Find(ctx, "qwen coder") // by name, case-insensitive
	if err != nil || q2.APIKey != "lk" || !reflect.DeepEqual(q2.Headers, map[string]string{"X-Team": "team-42", "X-Literal": "plain"}) {
		t.Fatalf("find by name %+v %v", q2, err)
	}
	if d, _ := r2.Default(ctx); d.Ref() != "local/qwen-coder" {
		t.Fatalf("default with LOCAL_KEY = %s", d.Ref())
	}
	lookups := []struct {
		ref, want, errHas string
	}{
		{ref: "my-finetune", want: "openai/my-finetune"},
		{ref: "openai/gpt-4o", want: "openai/gpt-4o"},
		{ref: "anthropic/claude-sonnet-4.5", errHas: "needs an API key"}, // bare OpenRouter id
		{ref: "local/not-listed", want: "local/not-listed"},              // pi's custom id fallback
		{ref: "tiny", errHas: "ambiguous: cmdkey/tiny, local/tiny"},
		{ref: "nope", errHas: `unknown model "nope"`},
		{ref: "claude/claude-sonnet-4", errHas: `uses api "anthropic-messages"`},
		{ref: "", errHas: "empty model reference"},
	}
	for _, l := range lookups {
		m, err := r2.Find(ctx, l.ref)
		if l.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), l.errHas) || !errors.Is(err, llm.ErrNoModel) {
				t.Errorf("find %q = %v, want error with %q", l.ref, err, l.errHas)
			}
			continue
		}
		if err != nil || m.Ref() != l.want {
			t.Errorf("find %q = %s %v, want %s", l.ref, m.Ref(), err, l.want)
		}
	}
	if nl, _ := r2.Find(ctx, "local/not-listed"); nl.BaseURL != "http://127.0.0.1:8080/v1" || nl.ContextWindow != 32768 {
		t.Fatalf("fallback model %+v", nl)
	}
	ps, _ := r2.Providers(ctx)
	if ps[0].Name != "local" || !ps[0].FromFile || ps[0].Builtin || ps[2].Name != "openai" || !ps[2].Builtin || !ps[2].FromFile {
		t.Fatalf("providers %+v", ps)
	}
}

func TestBadModelsJSON(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ content, errHas string }{
		{"{\n  \"providers\": {\n    \"x\": {\"baseUrl\": }\n  }\n}", "line 3, column 22"},
		{`{"providers": {"x": {"models": [{"id": "m"}]}}}`, `"baseUrl" is required`},
		{`{"providers": {"x": {"baseUrl": "http://h", "models": [{"name": "no id"}]}}}`, `has no "id"`},
		{`{"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m", "contextWindow": 0}]}}}`, "invalid contextWindow"},
		{`{"providers": {"x": {"baseUrl": "http://h", "compat": [1]}}}`, "must be an object"},
		{`{"providers": {"x": {}}}`, "must specify"},
		{`{"other": 1}`, `no "providers"`},
		{`{"providers": {"x": {"baseUrl": 5}}}`, "line 1"},
	}
	for _, tt := range tests {
		path := writeFile(t, dir, "models.json", tt.content)
		r := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: []string{"OPENAI_API_KEY=k"}})
		ms, err := r.Models(ctx)
		if err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want %q and the path", tt.content, err, tt.errHas)
			continue
		}
		if len(ms) == 0 || ms[0].Model.Provider != "openai" {
			t.Errorf("built-in models not kept: %v", refs(ms, false))
		}
		if _, err := r.Default(ctx); err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("default with a broken file = %v", err)
		}
		if m, err := r.Find(ctx, "openai/gpt-4o"); err != nil || m.APIKey != "k" {
			t.Errorf("builtin find with a broken file = %v", err)
		}
	}
}

func TestModelsPathResolution(t *testing.T) {
	dir := t.TempDir()
	viaEnv := writeFile(t, dir, "env.json", `{"providers":{"e":{"baseUrl":"http://e","apiKey":"lit","models":[{"id":"m"}]}}}`)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".pi/agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".pi/agent"), "models.json", `{"providers":{"h":{"baseUrl":"http://h","apiKey":"lit","models":[{"id":"m"}]}}}`)

	d, err := llm.NewRegistry(llm.RegistryOptions{Environ: []string{"HOME=" + home, "PI_LSP_MODELS=" + viaEnv}}).Default(ctx)
	if err != nil || d.Ref() != "e/m" || d.APIKey != "lit" {
		t.Fatalf("$PI_LSP_MODELS: %+v %v", d, err)
	}
	d, err = llm.NewRegistry(llm.RegistryOptions{Environ: []string{"HOME=" + home}}).Default(ctx)
	if err != nil || d.Ref() != "h/m" {
		t.Fatalf("home: %+v %v", d, err)
	}
	_, err = llm.NewRegistry(llm.RegistryOptions{Environ: []string{"PI_LSP_MODELS=" + filepath.Join(dir, "missing.json")}}).Models(ctx)
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("explicit missing file: %v", err)
	}
}

func TestRegistryCacheTTL(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "models.json", `{"providers":{"a":{"baseUrl":"http://a","apiKey":"k","models":[{"id":"one"}]}}}`)
	now := time.Unix(1000, 0)
	r := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: []string{}, Now: func() time.Time { return now }})
	first := func() string {
		ms, err := r.Models(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ms[0].Model.Ref()
	}
	if got := first(); got != "a/one" {
		t.Fatal(got)
	}
	writeFile(t, dir, "models.json", `{"providers":{"a":{"baseUrl":"http://a","apiKey":"k","models":[{"id":"two"}]}}}`)
	now = now.Add(9 * time.Second)
	if got := first(); got != "a/one" {
		t.Fatalf("re-read within 10 s: %s", got)
	}
	now = now.Add(time.Second)
	if got := first(); got != "a/two" {
		t.Fatalf("not re-read after 10 s: %s", got)
	}
}

func TestFailingKeyCommand(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "models.json", `{"providers":{"a":{"baseUrl":"http://a","apiKey":"!echo oops >&2; exit 3","models":[{"id":"m"}]}}}`)
	_, err := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: []string{"PATH=" + os.Getenv("PATH")}}).Find(ctx, "a/m")
	if err == nil || !strings.Contains(err.Error(), "apiKey") || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("err = %v", err)
	}
}

// TestFakeProviderEndToEnd: the models.json llmtest writes, read by the
// registry, drives the client against the fake.
func TestFakeProviderEndToEnd(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Response{Text: "hello from the fake"})
	path := llmtest.WriteModelsJSON(t.TempDir(), s.BaseURL(), llmtest.ModelSpec{ID: "small", ContextWindow: 8000})
	r := llm.NewRegistry(llm.RegistryOptions{Environ: []string{"PI_LSP_MODELS=" + path}})
	m, err := r.Default(ctx)
	if err != nil || m.Ref() != "fake/small" || m.ContextWindow != 8000 {
		t.Fatalf("default %+v %v", m, err)
	}
	msg := llm.NewClient(llm.ClientOptions{}).Stream(ctx, userRequest(m, "hi"), nil)
	if msg.Text() != "hello from the fake" || msg.StopReason != llm.StopStop {
		t.Fatalf("message %+v", msg)
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(s.Requests()[0], &body); err != nil || body.Model != "small" || body.Messages[0].Content != "hi" {
		t.Fatalf("request %s", s.Requests()[0])
	}
}

// A "!command" key runs once per registry, as pi caches it: finding the
// model again (a model switch, a new session) does not run it again.
func TestKeyCommandRunsOnce(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	path := writeFile(t, dir, "models.json", `{"providers":{"a":{"baseUrl":"http://a","apiKey":"!echo run >> `+count+`; echo key-1","models":[{"id":"m"},{"id":"n"}]}}}`)
	r := llm.NewRegistry(llm.RegistryOptions{Path: path, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	for _, ref := range []string{"a/m", "a/n", "a/m"} {
		m, err := r.Find(ctx, ref)
		if err != nil || m.APIKey != "key-1" {
			t.Fatalf("%s: %+v %v", ref, m, err)
		}
	}
	if runs, _ := os.ReadFile(count); string(runs) != "run\n" {
		t.Fatalf("the key command ran %q", runs)
	}
}
