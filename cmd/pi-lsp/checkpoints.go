package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/harness"
	settingsfile "github.com/pi-lsp/pi-lsp/settings"
)

// checkpointsSection is the "checkpoints" section of the user's settings
// file: {"checkpoints": {"enabled": true, "maxFileBytes": 10485760}}.
type checkpointsSection struct {
	Enabled      *bool `json:"enabled"`
	MaxFileBytes int64 `json:"maxFileBytes"`
}

// checkpointSettings reads the checkpoints section of the user's settings
// file (only the user's: a project cannot turn them off). The store lives
// in ~/.pi/agent/checkpoints.
func checkpointSettings(path string) (harness.CheckpointSettings, error) {
	out := harness.CheckpointSettings{Dir: filepath.Join(agentDir(), "checkpoints")}
	f, err := settingsfile.ReadFile(path)
	if err != nil || f == nil {
		return out, err
	}
	raw, ok := f.Raw["checkpoints"]
	if !ok {
		return out, nil
	}
	var c checkpointsSection
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return out, fmt.Errorf("settings: %s: checkpoints: %w", path, err)
	}
	if c.MaxFileBytes < 0 {
		return out, fmt.Errorf("settings: %s: checkpoints.maxFileBytes must not be negative", path)
	}
	out.Disabled = c.Enabled != nil && !*c.Enabled
	out.MaxFileBytes = c.MaxFileBytes
	return out, nil
}
