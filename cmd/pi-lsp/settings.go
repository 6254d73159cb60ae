package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/harness"
)

// settings is pi-lsp's own user settings file ($PI_LSP_SETTINGS or
// ~/.pi/agent/pi-lsp.json). Today it holds per-model compaction budgets:
//
//	{"compaction": {"ollama/qwen3:32b": {"reserveTokens": 4096, "keepRecentTokens": 8000}}}
type settings struct {
	Compaction map[string]struct {
		ReserveTokens    int `json:"reserveTokens"`
		KeepRecentTokens int `json:"keepRecentTokens"`
	} `json:"compaction"`
	// Subagents: {"maxConcurrent": 4, "modelAliases": {"sonnet": "openrouter/anthropic/claude-sonnet-4"}}
	Subagents harness.SubagentSettings `json:"subagents"`
}

// subagentSettings reads the "subagents" settings (cap and Claude model
// aliases). A missing file is the defaults; a broken one an error.
func subagentSettings(path string) (harness.SubagentSettings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return harness.SubagentSettings{}, nil
	}
	if err != nil {
		return harness.SubagentSettings{}, fmt.Errorf("settings: %w", err)
	}
	var s settings
	if err := json.Unmarshal(data, &s); err != nil {
		return harness.SubagentSettings{}, fmt.Errorf("settings: %s: %w", path, err)
	}
	if s.Subagents.MaxConcurrent < 0 {
		return harness.SubagentSettings{}, fmt.Errorf("settings: %s: subagents.maxConcurrent must not be negative", path)
	}
	return s.Subagents, nil
}

func settingsPath() string {
	if p := os.Getenv("PI_LSP_SETTINGS"); p != "" {
		return p
	}
	return filepath.Join(agentDir(), "pi-lsp.json")
}

// budgetOverrides reads the per-model compaction budgets. A missing file
// is no overrides; a broken one is an error naming it.
func budgetOverrides(path string) (map[string]compaction.Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	var s settings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	out := map[string]compaction.Settings{}
	for model, b := range s.Compaction {
		if b.ReserveTokens < 0 || b.KeepRecentTokens < 0 {
			return nil, fmt.Errorf("settings: %s: compaction.%s: token counts must not be negative", path, model)
		}
		out[model] = compaction.Settings{Enabled: true, ReserveTokens: b.ReserveTokens, KeepRecentTokens: b.KeepRecentTokens}
	}
	return out, nil
}
