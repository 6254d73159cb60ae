package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// AuthFile is what ReadAuthFile found in pi's auth.json.
type AuthFile struct {
	// Keys maps a provider name (pi's auth.json key) to its API key as
	// written: a literal, an environment variable name or "!command".
	Keys map[string]string
	// Warnings are problems that do not stop pi-lsp (a file others can
	// read, entries pi-lsp cannot use).
	Warnings []string
}

// DefaultAuthPath is pi's ~/.pi/agent/auth.json for the given HOME.
func DefaultAuthPath(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".pi", "agent", "auth.json")
}

// ReadAuthFile reads pi's auth.json (written by pi's /login):
//
//	{"openai": {"type": "api_key", "key": "sk-..."}, "anthropic": {"type": "oauth", ...}}
//
// API-key entries are returned; OAuth entries are skipped (pi-lsp speaks
// only API keys) with a warning. A missing file is no keys. The file must
// be private (0600): a file that others can read gives a warning.
func ReadAuthFile(path string) (AuthFile, error) {
	if path == "" {
		return AuthFile{}, nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return AuthFile{}, nil
	}
	if err != nil {
		return AuthFile{}, fmt.Errorf("auth.json: %w", err)
	}
	var out AuthFile
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s holds API keys and is readable by others (mode %#o): run chmod 600 %s", path, perm, path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return out, fmt.Errorf("auth.json: %w", err)
	}
	var doc map[string]struct {
		Type string `json:"type"`
		Key  string `json:"key"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return out, fmt.Errorf("auth.json: %s: %w", path, err)
	}
	names := make([]string, 0, len(doc))
	for n := range doc {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		e := doc[name]
		switch {
		case e.Type == "api_key" && strings.TrimSpace(e.Key) != "":
			if out.Keys == nil {
				out.Keys = map[string]string{}
			}
			out.Keys[name] = strings.TrimSpace(e.Key)
		case e.Type == "oauth":
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %q is an OAuth login, which pi-lsp cannot use (give it an API key)", path, name))
		default:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %q has no usable API key (want {\"type\": \"api_key\", \"key\": \"...\"})", path, name))
		}
	}
	return out, nil
}

// Secrets returns the literal keys in os.Environ form, named so that the
// secret redactor treats them as secrets (PI_AUTH_<PROVIDER>_KEY=value).
// Keys that name an environment variable or a command are not literal:
// the variable is already in the environment, and a command's output is
// not known before it runs.
func (a AuthFile) Secrets() []string {
	var out []string
	for name, k := range a.Keys {
		if strings.HasPrefix(k, "!") || isEnvName(k) {
			continue
		}
		env := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 'a' + 'A'
			}
			if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, name)
		out = append(out, "PI_AUTH_"+env+"_KEY="+k)
	}
	sort.Strings(out)
	return out
}

// piAuthAliases are pi's auth.json names for pi-lsp's built-in providers
// where they differ.
var piAuthAliases = map[string]string{"gemini": "google"}

// authKey is the auth.json key configured for provider p ("" if none).
func (r *Registry) authKey(p *provider) string {
	if k := r.auth[p.name]; k != "" {
		return k
	}
	if alias := piAuthAliases[p.name]; alias != "" {
		return r.auth[alias]
	}
	return ""
}

// authed reports whether p has what it needs: no key needed, a key in the
// environment or in models.json, or one in auth.json.
func (r *Registry) authed(p *provider) bool {
	return p.authenticated(r.env) || r.authKey(p) != ""
}

// apiKey resolves p's key: the environment first (the built-in variable,
// or the variable models.json's apiKey names), then auth.json, then
// models.json's apiKey as a literal or command.
func (r *Registry) apiKey(ctx context.Context, p *provider) (string, error) {
	if p.keyEnv != "" && r.env[p.keyEnv] != "" {
		return r.env[p.keyEnv], nil
	}
	if isEnvName(p.apiKey) && r.env[p.apiKey] != "" {
		return r.env[p.apiKey], nil
	}
	if k := r.authKey(p); k != "" {
		v, err := r.value(ctx, k)
		if err != nil {
			return "", fmt.Errorf("auth.json: %w", err)
		}
		if v != "" {
			return v, nil
		}
	}
	if p.apiKey == "" {
		return "", nil
	}
	return r.value(ctx, p.apiKey)
}
