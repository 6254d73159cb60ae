package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// pi's defaults for a models.json model.
const (
	defaultContextWindow = 128000
	defaultMaxTokens     = 16384
)

// The models.json shapes (pi's docs/models.md).
type (
	fileConfig struct {
		Providers json.RawMessage `json:"providers"`
	}
	fileProvider struct {
		BaseURL        string                  `json:"baseUrl"`
		API            string                  `json:"api"`
		APIKey         string                  `json:"apiKey"`
		Headers        map[string]string       `json:"headers"`
		Compat         json.RawMessage         `json:"compat"`
		Models         []fileModel             `json:"models"`
		ModelOverrides map[string]fileOverride `json:"modelOverrides"`
	}
	fileModel struct {
		ID            string            `json:"id"`
		Name          string            `json:"name"`
		API           string            `json:"api"`
		BaseURL       string            `json:"baseUrl"`
		Reasoning     bool              `json:"reasoning"`
		Input         []string          `json:"input"`
		ContextWindow *int              `json:"contextWindow"`
		MaxTokens     *int              `json:"maxTokens"`
		Cost          *fileCost         `json:"cost"`
		Compat        json.RawMessage   `json:"compat"`
		Headers       map[string]string `json:"headers"`
	}
	fileCost struct {
		Input      *float64 `json:"input"`
		Output     *float64 `json:"output"`
		CacheRead  *float64 `json:"cacheRead"`
		CacheWrite *float64 `json:"cacheWrite"`
	}
	fileOverride struct {
		Name          *string         `json:"name"`
		Reasoning     *bool           `json:"reasoning"`
		Input         []string        `json:"input"`
		ContextWindow *int            `json:"contextWindow"`
		MaxTokens     *int            `json:"maxTokens"`
		Cost          *fileCost       `json:"cost"`
		Compat        json.RawMessage `json:"compat"`
	}
)

// namedProvider is one entry of the providers object, in file order.
type namedProvider struct {
	name string
	fileProvider
}

// parseModelsJSON reads a models.json (comments allowed, as pi allows them)
// into its providers in file order. Errors name the line and column.
func parseModelsJSON(data []byte) ([]namedProvider, error) {
	data = stripJSONComments(data)
	var cfg fileConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, jsonError(data, err)
	}
	if len(cfg.Providers) == 0 || string(cfg.Providers) == "null" {
		return nil, errors.New(`no "providers" object`)
	}
	// Decode the whole document again, typed, so that a type error is
	// reported at its position in the file.
	var typed struct {
		Providers map[string]fileProvider `json:"providers"`
	}
	if err := json.Unmarshal(data, &typed); err != nil {
		return nil, jsonError(data, err)
	}
	keys, err := objectKeys(cfg.Providers)
	if err != nil {
		return nil, fmt.Errorf(`"providers": %w`, err)
	}
	out := make([]namedProvider, 0, len(keys))
	for _, k := range keys {
		out = append(out, namedProvider{name: k, fileProvider: typed.Providers[k]})
	}
	return out, nil
}

// objectKeys returns the keys of a JSON object in document order (a Go map
// would lose the order, and the first provider of the file is the default).
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// jsonError adds the line and column to a JSON syntax or type error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	// Offset counts the bytes read, the offending one included.
	at := max(0, off-1)
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := int(at) - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// stripJSONComments blanks out // and /* */ comments outside strings,
// keeping newlines so that error positions stay true. There is no JSONC
// parser among the dependencies; this is the small subset pi accepts.
func stripJSONComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}

// apply overlays the given prices.
func (fc *fileCost) apply(c *Cost) {
	if fc == nil {
		return
	}
	for _, f := range []struct {
		src *float64
		dst *float64
	}{{fc.Input, &c.Input}, {fc.Output, &c.Output}, {fc.CacheRead, &c.CacheRead}, {fc.CacheWrite, &c.CacheWrite}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
}

// validate checks a provider as pi's validateConfig does, minus the
// requirements pi-lsp can do without (an apiKey for a local server).
func (p *namedProvider) validate(builtin bool) error {
	if p.name == "" || strings.ContainsAny(p.name, "/ \t\n") {
		return fmt.Errorf(`provider name %q: must be non-empty, without "/" or spaces`, p.name)
	}
	if len(p.Models) == 0 && p.BaseURL == "" && len(p.Headers) == 0 && len(p.Compat) == 0 && len(p.ModelOverrides) == 0 && p.APIKey == "" {
		return fmt.Errorf(`provider %q: must specify "baseUrl", "apiKey", "headers", "compat", "modelOverrides" or "models"`, p.name)
	}
	if len(p.Models) > 0 && !builtin && p.BaseURL == "" {
		for _, m := range p.Models {
			if m.BaseURL == "" {
				return fmt.Errorf(`provider %q: "baseUrl" is required when defining models`, p.name)
			}
		}
	}
	if err := checkObject(p.Compat); err != nil {
		return fmt.Errorf(`provider %q: "compat": %w`, p.name, err)
	}
	for id, o := range p.ModelOverrides {
		if err := checkObject(o.Compat); err != nil {
			return fmt.Errorf(`provider %q, modelOverrides %q: "compat": %w`, p.name, id, err)
		}
	}
	for i, m := range p.Models {
		if err := checkObject(m.Compat); err != nil {
			return fmt.Errorf(`provider %q, model %q: "compat": %w`, p.name, m.ID, err)
		}
		if m.ID == "" {
			return fmt.Errorf(`provider %q: model %d has no "id"`, p.name, i+1)
		}
		if m.ContextWindow != nil && *m.ContextWindow <= 0 {
			return fmt.Errorf(`provider %q, model %q: invalid contextWindow %d`, p.name, m.ID, *m.ContextWindow)
		}
		if m.MaxTokens != nil && *m.MaxTokens <= 0 {
			return fmt.Errorf(`provider %q, model %q: invalid maxTokens %d`, p.name, m.ID, *m.MaxTokens)
		}
	}
	return nil
}

// checkObject accepts an absent, null or object value.
func checkObject(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || raw[0] == '{' {
		return nil
	}
	return errors.New("must be an object")
}
