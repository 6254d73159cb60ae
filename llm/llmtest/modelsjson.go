package llmtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ProviderName is the provider name WriteModelsJSON gives the fake.
const ProviderName = "fake"

// ModelSpec describes one model of the fake provider. Zero fields take
// defaults: ID "fake-model", ContextWindow 128000, MaxTokens 16384.
type ModelSpec struct {
	ID            string
	Name          string
	ContextWindow int
	MaxTokens     int
	Reasoning     bool
	Input         []string // default ["text"]
	// Cost is the models.json price per million tokens; nil = none.
	Cost *Cost
}

// Cost is a models.json cost entry (per million tokens).
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// WriteModelsJSON writes dir/models.json in pi's models.json format with one
// provider, "fake", whose baseUrl is baseURL, whose api is
// "openai-completions" and whose apiKey is the literal "fake-key", holding
// models (one default model when none are given). It returns the file's
// path, to be put in $PI_LSP_MODELS. Like httptest.NewServer it panics if it
// cannot do its job (here: write the file).
func WriteModelsJSON(dir, baseURL string, models ...ModelSpec) string {
	path, err := writeModelsJSON(filepath.Join(dir, "models.json"), baseURL, models)
	if err != nil {
		panic(err)
	}
	return path
}

func writeModelsJSON(path, baseURL string, models []ModelSpec) (string, error) {
	if len(models) == 0 {
		models = []ModelSpec{{}}
	}
	type model struct {
		ID            string   `json:"id"`
		Name          string   `json:"name,omitempty"`
		ContextWindow int      `json:"contextWindow"`
		MaxTokens     int      `json:"maxTokens"`
		Reasoning     bool     `json:"reasoning"`
		Input         []string `json:"input"`
		Cost          *Cost    `json:"cost,omitempty"`
	}
	var ms []model
	for _, m := range models {
		if m.ID == "" {
			m.ID = "fake-model"
		}
		if m.ContextWindow <= 0 {
			m.ContextWindow = 128000
		}
		if m.MaxTokens <= 0 {
			m.MaxTokens = 16384
		}
		if len(m.Input) == 0 {
			m.Input = []string{"text"}
		}
		ms = append(ms, model(m))
	}
	doc := map[string]any{"providers": map[string]any{ProviderName: map[string]any{
		"baseUrl": baseURL,
		"api":     "openai-completions",
		"apiKey":  "fake-key",
		"models":  ms,
	}}}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", fmt.Errorf("llmtest: models.json: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("llmtest: models.json: %w", err)
	}
	return path, nil
}

// WriteModelsJSONFile is WriteModelsJSON writing to an exact path and
// returning an error instead of panicking.
func WriteModelsJSONFile(path, baseURL string, models ...ModelSpec) error {
	_, err := writeModelsJSON(path, baseURL, models)
	return err
}
