package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pi-lsp/pi-lsp/memory"
)

// memorySettings reads the "memory" object of the settings file and applies
// the --memory flag over its mode:
//
//	{"memory": {"mode": "observational", "observeTokens": 20000, "model": "openai/gpt-4.1-mini",
//	            "failurePolicy": "throw", "idleAfter": {"ollama/qwen3:32b": "30m"}}}
func memorySettings(path, flagMode string) (memory.Settings, map[string]time.Duration, error) {
	var file struct {
		Memory struct {
			memory.Settings
			IdleAfter map[string]string `json:"idleAfter"`
		} `json:"memory"`
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return memory.Settings{}, nil, fmt.Errorf("settings: %w", err)
	default:
		if err := json.Unmarshal(data, &file); err != nil {
			return memory.Settings{}, nil, fmt.Errorf("settings: %s: %w", path, err)
		}
	}
	s := file.Memory.Settings
	if flagMode != "" {
		s.Mode = flagMode
	}
	if s.Mode == "" && s != (memory.Settings{}) {
		s.Mode = memory.ModeCompaction
	}
	if s.Mode != "" {
		if err := s.Validate(); err != nil {
			return memory.Settings{}, nil, fmt.Errorf("memory settings (%s, --memory): %w", path, err)
		}
	}
	idle := map[string]time.Duration{}
	for model, v := range file.Memory.IdleAfter {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return memory.Settings{}, nil, fmt.Errorf("settings: %s: memory.idleAfter.%s: %q is not a positive duration", path, model, v)
		}
		idle[model] = d
	}
	return s, idle, nil
}
