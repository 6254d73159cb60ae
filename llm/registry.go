package llm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// cacheTTL is how long a reading of models.json is reused.
const cacheTTL = 10 * time.Second

// ModelsEnvVar names the environment variable that points at models.json.
const ModelsEnvVar = "PI_LSP_MODELS"

// ErrNoModel is wrapped by the errors of Default and Find when no usable
// model exists.
var ErrNoModel = errors.New("no usable model")

// RegistryOptions configures a Registry. The zero value reads
// $PI_LSP_MODELS or ~/.pi/agent/models.json with the process environment.
type RegistryOptions struct {
	// Path of models.json; "" means $PI_LSP_MODELS, else
	// $HOME/.pi/agent/models.json. An explicit path (here or in
	// $PI_LSP_MODELS) must exist; the default one may be absent.
	Path string
	// Environ is the environment as KEY=VALUE pairs, for API keys, HOME and
	// PI_LSP_MODELS (default os.Environ()).
	Environ []string
	// Now is the clock of the cache (default time.Now).
	Now func() time.Time
	// AuthKeys are the API keys of pi's auth.json (ReadAuthFile), by
	// provider: used after the environment, before models.json's apiKey.
	AuthKeys map[string]string
}

// ModelInfo is a model of the registry and whether its provider has the
// credentials it needs. Model.APIKey is not filled in.
type ModelInfo struct {
	Model         Model
	Authenticated bool
}

// ProviderInfo describes a provider and its authentication status.
type ProviderInfo struct {
	Name          string
	BaseURL       string
	API           string
	Authenticated bool
	// KeyEnv is the environment variable a built-in provider takes its key
	// from ("" for models.json providers and keyless ones).
	KeyEnv string
	// Builtin is true for the providers pi-lsp knows; FromFile when
	// models.json defines or changes it (both can be true).
	Builtin, FromFile bool
	Models            int
}

// Registry lists the models pi-lsp can use: the built-in providers and
// those of pi's models.json. It is safe for concurrent use; the file is
// read again after 10 s (the environment is the one given to NewRegistry).
type Registry struct {
	path     string
	explicit bool
	environ  []string
	env      map[string]string
	now      func() time.Time

	mu       sync.Mutex
	cached   *catalog
	cachedAt time.Time

	auth map[string]string // auth.json keys by provider

	cmdMu  sync.Mutex
	cmdOut map[string]string // output of "!command" values, as pi caches them for the process
}

// NewRegistry returns a registry; nothing is read until it is used.
func NewRegistry(opts RegistryOptions) *Registry {
	r := &Registry{path: opts.Path, environ: opts.Environ, now: opts.Now, auth: opts.AuthKeys}
	if r.environ == nil {
		r.environ = os.Environ()
	}
	r.env = envMap(r.environ)
	if r.now == nil {
		r.now = time.Now
	}
	switch {
	case r.path != "":
		r.explicit = true
	case r.env[ModelsEnvVar] != "":
		r.path, r.explicit = r.env[ModelsEnvVar], true
	case r.env["HOME"] != "":
		r.path = filepath.Join(r.env["HOME"], ".pi", "agent", "models.json")
	}
	return r
}

// Path returns the models.json the registry reads ("" when there is none
// to read).
func (r *Registry) Path() string { return r.path }

// load returns the current catalog, reading it again when the cached one
// is older than cacheTTL.
func (r *Registry) load(ctx context.Context) (*catalog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.cached != nil && now.Sub(r.cachedAt) < cacheTTL && !now.Before(r.cachedAt) {
		return r.cached, nil
	}
	var data []byte
	var readErr error
	if r.path != "" {
		b, err := os.ReadFile(r.path)
		switch {
		case err == nil:
			data = b
		case errors.Is(err, fs.ErrNotExist) && !r.explicit:
		default:
			readErr = fmt.Errorf("models.json: %w", err)
		}
	}
	c := buildCatalog(data, r.path, r.env)
	if readErr != nil {
		c.err = readErr
	}
	r.cached, r.cachedAt = c, now
	return c, nil
}

// Models lists every model pi-lsp can drive: models.json models first, in
// file order, then the built-in ones. When models.json cannot be read or
// is invalid the list holds the built-in models and the error says why.
func (r *Registry) Models(ctx context.Context) ([]ModelInfo, error) {
	c, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(c.entries))
	for _, e := range c.entries {
		out = append(out, ModelInfo{Model: e.model, Authenticated: r.authed(e.prov)})
	}
	return out, c.err
}

// Providers lists the providers with their authentication status, in the
// order of Models.
func (r *Registry) Providers(ctx context.Context) ([]ProviderInfo, error) {
	c, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	counts := map[*provider]int{}
	for _, e := range c.entries {
		counts[e.prov]++
	}
	out := make([]ProviderInfo, 0, len(c.providers))
	for _, p := range c.providers {
		out = append(out, ProviderInfo{Name: p.name, BaseURL: p.baseURL, API: p.api,
			Authenticated: r.authed(p), KeyEnv: p.keyEnv, Builtin: p.builtin, FromFile: p.fromFile,
			Models: counts[p]})
	}
	return out, c.err
}

// Find returns the model a reference names, with its API key and headers
// resolved (a "!command" runs now). A reference is "provider/id", or a bare
// id (or name) when exactly one model has it. An id a known provider does
// not list is accepted as "provider/any-id" and takes the settings of the
// provider's first model, as pi does.
func (r *Registry) Find(ctx context.Context, ref string) (Model, error) {
	c, err := r.load(ctx)
	if err != nil {
		return Model{}, err
	}
	e, err := c.find(ref)
	if err != nil {
		if c.err != nil {
			err = fmt.Errorf("%w (and %w)", err, c.err)
		}
		return Model{}, err
	}
	return r.resolve(ctx, e)
}

// Default returns the first authenticated model of models.json, else the
// first authenticated built-in one (a keyless local provider such as
// Ollama is never picked by default). The error, when there is none, says
// how to configure one.
func (r *Registry) Default(ctx context.Context) (Model, error) {
	c, err := r.load(ctx)
	if err != nil {
		return Model{}, err
	}
	if c.err != nil {
		return Model{}, c.err
	}
	for _, e := range c.entries {
		if e.fromFile && r.authed(e.prov) {
			return r.resolve(ctx, e)
		}
	}
	for _, e := range c.entries {
		if !e.fromFile && !e.prov.keyless && r.authed(e.prov) {
			return r.resolve(ctx, e)
		}
	}
	return Model{}, fmt.Errorf("%w: %s", ErrNoModel, r.howToConfigure())
}

func (r *Registry) howToConfigure() string {
	where := "~/.pi/agent/models.json"
	if r.path != "" {
		where = r.path
	}
	return fmt.Sprintf("set an API key in one of %s, or add a provider to $%s or %s (see docs/models.md); a local Ollama is used with --model ollama/<model>",
		strings.Join(BuiltinKeyEnvVars(), ", "), ModelsEnvVar, where)
}

// value resolves a config value (resolveValue). A "!command" runs once per
// registry: its output is kept, as pi keeps it for the life of the process,
// so looking a model up again (each model switch, each session) does not
// run a password manager again. A failed command is not kept.
func (r *Registry) value(ctx context.Context, v string) (string, error) {
	if !strings.HasPrefix(v, "!") {
		return resolveValue(ctx, v, r.env, r.environ)
	}
	r.cmdMu.Lock()
	out, ok := r.cmdOut[v]
	r.cmdMu.Unlock()
	if ok {
		return out, nil
	}
	out, err := resolveValue(ctx, v, r.env, r.environ)
	if err != nil {
		return "", err
	}
	r.cmdMu.Lock()
	if r.cmdOut == nil {
		r.cmdOut = map[string]string{}
	}
	r.cmdOut[v] = out
	r.cmdMu.Unlock()
	return out, nil
}

// resolve fills in the API key and headers of a model.
func (r *Registry) resolve(ctx context.Context, e entry) (Model, error) {
	m := e.model
	p := e.prov
	if !r.authed(p) {
		return Model{}, fmt.Errorf("%w: %s needs an API key: %s", ErrNoModel, m.Ref(), r.keyHint(p))
	}
	key, err := r.apiKey(ctx, p)
	if err != nil {
		return Model{}, fmt.Errorf("%s: apiKey: %w", m.Ref(), err)
	}
	m.APIKey = key
	hs := maps.Clone(p.headers)
	if hs == nil && len(e.headers) > 0 {
		hs = map[string]string{}
	}
	maps.Copy(hs, e.headers)
	if len(hs) > 0 {
		m.Headers = make(map[string]string, len(hs))
		for k, v := range hs {
			val, err := r.value(ctx, v)
			if err != nil {
				return Model{}, fmt.Errorf("%s: header %s: %w", m.Ref(), k, err)
			}
			if val != "" {
				m.Headers[k] = val
			}
		}
	}
	return m, nil
}

func (r *Registry) keyHint(p *provider) string {
	if p.keyEnv != "" && (p.apiKey == "" || p.apiKey == p.keyEnv) {
		return fmt.Sprintf("set $%s (or give \"apiKey\" for provider %q in %s)", p.keyEnv, p.name, r.modelsPathHint())
	}
	if isEnvName(p.apiKey) {
		return fmt.Sprintf("set $%s, which provider %q in %s names as its apiKey", p.apiKey, p.name, r.modelsPathHint())
	}
	return fmt.Sprintf("give \"apiKey\" for provider %q in %s", p.name, r.modelsPathHint())
}

func (r *Registry) modelsPathHint() string {
	if r.path != "" {
		return r.path
	}
	return "$" + ModelsEnvVar
}

// find looks a reference up.
func (c *catalog) find(ref string) (entry, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return entry{}, fmt.Errorf("%w: empty model reference", ErrNoModel)
	}
	if prov, id, ok := strings.Cut(ref, "/"); ok {
		var first *entry
		for i := range c.entries {
			e := &c.entries[i]
			if e.prov.name != prov {
				continue
			}
			if e.model.ID == id {
				return *e, nil
			}
			if first == nil {
				first = e
			}
		}
		if api, ok := c.unsupported[ref]; ok {
			return entry{}, fmt.Errorf("%w: %s uses api %q; pi-lsp speaks only %q", ErrNoModel, ref, api, defaultAPI)
		}
		if first != nil && id != "" && !c.hasID(ref) {
			e := *first
			e.model.ID, e.model.Name = id, id
			return e, nil
		}
	}
	var matches []entry
	for _, e := range c.entries {
		if e.model.ID == ref {
			matches = append(matches, e)
		}
	}
	if len(matches) == 0 {
		for _, e := range c.entries {
			if strings.EqualFold(e.model.Name, ref) {
				matches = append(matches, e)
			}
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		if api, ok := c.unsupported[ref]; ok {
			return entry{}, fmt.Errorf("%w: %s uses api %q; pi-lsp speaks only %q", ErrNoModel, ref, api, defaultAPI)
		}
		return entry{}, fmt.Errorf("%w: unknown model %q (list them with model/list; use provider/id)", ErrNoModel, ref)
	default:
		refs := make([]string, len(matches))
		for i, e := range matches {
			refs[i] = e.model.Ref()
		}
		sort.Strings(refs)
		return entry{}, fmt.Errorf("%w: model %q is ambiguous: %s", ErrNoModel, ref, strings.Join(refs, ", "))
	}
}

// hasID reports whether some model's id is ref itself (OpenRouter ids
// contain a slash).
func (c *catalog) hasID(ref string) bool {
	for _, e := range c.entries {
		if e.model.ID == ref {
			return true
		}
	}
	return false
}
