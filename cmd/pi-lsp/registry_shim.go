package main

// A stop-gap model source until llm.Registry lands: it reads pi's
// models.json from $PI_LSP_MODELS or ~/.pi/agent/models.json.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
)

type shimRegistry struct{}

type shimInfo struct {
	Model         llm.Model
	Authenticated bool
}

func (shimRegistry) load() ([]llm.Model, error) {
	path := os.Getenv("PI_LSP_MODELS")
	if path == "" {
		home, _ := os.UserHomeDir()
		path = filepath.Join(home, ".pi", "agent", "models.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("no models configured (%s): %w", path, err)
	}
	var f struct {
		Providers map[string]struct {
			BaseURL string      `json:"baseUrl"`
			API     string      `json:"api"`
			APIKey  string      `json:"apiKey"`
			Models  []llm.Model `json:"models"`
		} `json:"providers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []llm.Model
	for name, p := range f.Providers {
		for _, m := range p.Models {
			m.Provider, m.BaseURL, m.API = name, p.BaseURL, p.API
			m.APIKey = p.APIKey
			if v := os.Getenv(p.APIKey); v != "" {
				m.APIKey = v
			}
			if m.ContextWindow == 0 {
				m.ContextWindow = 128000
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func (r shimRegistry) Models(ctx context.Context) ([]shimInfo, error) {
	ms, err := r.load()
	var out []shimInfo
	for _, m := range ms {
		out = append(out, shimInfo{Model: m, Authenticated: true})
	}
	return out, err
}

func (r shimRegistry) Find(ctx context.Context, ref string) (llm.Model, error) {
	ms, err := r.load()
	if err != nil {
		return llm.Model{}, err
	}
	for _, m := range ms {
		if m.Ref() == ref || (!strings.Contains(ref, "/") && m.ID == ref) {
			return m, nil
		}
	}
	return llm.Model{}, fmt.Errorf("model %q not found", ref)
}

func (r shimRegistry) Default(ctx context.Context) (llm.Model, error) {
	ms, err := r.load()
	if err != nil {
		return llm.Model{}, err
	}
	if len(ms) == 0 {
		return llm.Model{}, fmt.Errorf("no models configured")
	}
	return ms[0], nil
}
