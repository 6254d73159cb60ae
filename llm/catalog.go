package llm

import (
	"encoding/json"
	"fmt"
	"maps"
)

// provider is a resolved provider: a built-in one, possibly changed by
// models.json, or one models.json defines.
type provider struct {
	name     string
	baseURL  string
	api      string
	apiKey   string // config value: literal, env var name or "!command"; "" = none
	keyEnv   string // built-in key variable
	keyless  bool   // needs no key (a local server)
	headers  map[string]string
	compat   json.RawMessage
	builtin  bool
	fromFile bool
}

func (p *provider) authenticated(env map[string]string) bool {
	return p.keyless || configured(p.apiKey, env)
}

// entry is a model with its provider and origin.
type entry struct {
	model    Model // APIKey and Headers unresolved
	headers  map[string]string
	prov     *provider
	fromFile bool
}

// catalog is one reading of the configuration.
type catalog struct {
	providers   []*provider
	entries     []entry
	unsupported map[string]string // ref → api of models pi-lsp cannot drive
	err         error             // the models.json problem, if any
}

// buildCatalog merges the built-in providers with models.json as pi
// merges them: provider settings override the built-in ones, custom models
// are upserted by id, modelOverrides patch built-in models. A models.json
// that fails to parse or validate is ignored as a whole and reported in
// err.
func buildCatalog(data []byte, path string, env map[string]string) *catalog {
	c := &catalog{unsupported: map[string]string{}}
	var file []namedProvider
	if data != nil {
		var err error
		file, err = parseModelsJSON(data)
		if err == nil {
			err = validateFile(file)
		}
		if err != nil {
			c.err = fmt.Errorf("models.json (%s): %w", path, err)
			file = nil
		}
	}

	builtins := builtinProviders(env)
	byName := map[string]*provider{}
	builtinModels := map[string][]Model{}
	for _, b := range builtins {
		p := &provider{name: b.name, baseURL: b.baseURL, api: defaultAPI, keyEnv: b.keyEnv, builtin: true,
			keyless: b.keyEnv == ""}
		if b.keyEnv != "" {
			p.apiKey = b.keyEnv
		}
		if b.compat != "" {
			p.compat = json.RawMessage(b.compat)
		}
		byName[b.name] = p
		builtinModels[b.name] = b.models
	}

	// Providers from the file first, in file order; then the untouched
	// built-in ones. Models from the file come before built-in models.
	var fileEntries, builtinEntries []entry
	seen := map[string]bool{}
	for i := range file {
		fp := &file[i]
		p, isBuiltin := byName[fp.name]
		if !isBuiltin {
			p = &provider{name: fp.name, api: defaultAPI, keyless: fp.APIKey == ""}
			byName[fp.name] = p
		}
		p.fromFile = true
		if fp.BaseURL != "" {
			p.baseURL = fp.BaseURL
		}
		if fp.API != "" {
			p.api = fp.API
		}
		if fp.APIKey != "" {
			p.apiKey, p.keyless = fp.APIKey, false
		}
		if len(fp.Headers) > 0 {
			p.headers = maps.Clone(fp.Headers)
		}
		p.compat, _ = mergeCompat(p.compat, fp.Compat) // validated: objects
		c.providers = append(c.providers, p)
		seen[fp.name] = true
		// Built-in models, patched by modelOverrides, then the file's
		// models, replacing a built-in one with the same id.
		var list []entry
		for _, m := range builtinModels[fp.name] {
			if o, ok := fp.ModelOverrides[m.ID]; ok {
				m = applyOverride(m, o)
			}
			list = append(list, entry{model: m, prov: p})
		}
		for _, fm := range fp.Models {
			e := entry{model: fileModelToModel(fm), headers: fm.Headers, prov: p, fromFile: true}
			replaced := false
			for j := range list {
				if list[j].model.ID == fm.ID {
					list[j], replaced = e, true
				}
			}
			if !replaced {
				list = append(list, e)
			}
		}
		for _, e := range list {
			if e.fromFile {
				fileEntries = append(fileEntries, e)
			} else {
				builtinEntries = append(builtinEntries, e)
			}
		}
	}
	for _, b := range builtins {
		if !seen[b.name] {
			p := byName[b.name]
			c.providers = append(c.providers, p)
			for _, m := range builtinModels[b.name] {
				builtinEntries = append(builtinEntries, entry{model: m, prov: p})
			}
		}
	}
	for _, e := range append(fileEntries, builtinEntries...) {
		c.add(e)
	}
	return c
}

// add completes an entry against its provider and files it as drivable or
// not.
func (c *catalog) add(e entry) {
	m := &e.model
	p := e.prov
	m.Provider = p.name
	if m.BaseURL == "" {
		m.BaseURL = p.baseURL
	}
	if m.API == "" {
		m.API = p.api
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	if len(m.Input) == 0 {
		m.Input = []string{"text"}
	}
	if m.ContextWindow <= 0 {
		m.ContextWindow = defaultContextWindow
	}
	if m.MaxTokens <= 0 {
		m.MaxTokens = defaultMaxTokens
	}
	m.Compat, _ = mergeCompat(p.compat, m.Compat) // validated: objects
	if m.API != defaultAPI {
		c.unsupported[m.Ref()] = m.API
		return
	}
	c.entries = append(c.entries, e)
}

func fileModelToModel(fm fileModel) Model {
	m := Model{ID: fm.ID, Name: fm.Name, API: fm.API, BaseURL: fm.BaseURL, Reasoning: fm.Reasoning, Input: fm.Input, Compat: fm.Compat}
	if fm.ContextWindow != nil {
		m.ContextWindow = *fm.ContextWindow
	}
	if fm.MaxTokens != nil {
		m.MaxTokens = *fm.MaxTokens
	}
	fm.Cost.apply(&m.Cost)
	return m
}

func applyOverride(m Model, o fileOverride) Model {
	if o.Name != nil {
		m.Name = *o.Name
	}
	if o.Reasoning != nil {
		m.Reasoning = *o.Reasoning
	}
	if len(o.Input) > 0 {
		m.Input = o.Input
	}
	if o.ContextWindow != nil && *o.ContextWindow > 0 {
		m.ContextWindow = *o.ContextWindow
	}
	if o.MaxTokens != nil && *o.MaxTokens > 0 {
		m.MaxTokens = *o.MaxTokens
	}
	o.Cost.apply(&m.Cost)
	m.Compat, _ = mergeCompat(m.Compat, o.Compat) // validated: objects
	return m
}

func validateFile(file []namedProvider) error {
	builtin := map[string]bool{}
	for _, b := range builtinProviders(nil) {
		builtin[b.name] = true
	}
	for i := range file {
		if err := file[i].validate(builtin[file[i].name]); err != nil {
			return err
		}
	}
	return nil
}
