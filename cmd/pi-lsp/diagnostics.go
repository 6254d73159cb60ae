package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/langserver"
)

// codeSettings are the diagnostics and lsp sections of the user's
// settings file (docs/tools.md):
//
//	{"diagnostics": {"enabled": true, "settleMs": 1500},
//	 "lsp": {"servers": {"gopls": {"command": ["gopls"], "extensions": [".go"]}}}}
//
// Language servers are commands pi-lsp runs, so they come only from the
// user's file, never from a project's.
type codeSettings struct {
	Diagnostics struct {
		Enabled  *bool `json:"enabled"`
		SettleMs *int  `json:"settleMs"`
	} `json:"diagnostics"`
	LSP struct {
		Servers map[string]langserver.ServerConfig `json:"servers"`
	} `json:"lsp"`
}

// diagnosticsSettings reads the diagnostics settings and resolves the
// language servers (the configured ones over those found on PATH).
func diagnosticsSettings(path string) (harness.DiagnosticsSettings, []langserver.ServerConfig, error) {
	var s codeSettings
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return harness.DiagnosticsSettings{}, nil, fmt.Errorf("settings: %w", err)
	default:
		if err := json.Unmarshal(data, &s); err != nil {
			return harness.DiagnosticsSettings{}, nil, fmt.Errorf("settings: %s: %w", path, err)
		}
	}
	var ds harness.DiagnosticsSettings
	if e := s.Diagnostics.Enabled; e != nil && !*e {
		ds.Disabled = true
	}
	if ms := s.Diagnostics.SettleMs; ms != nil {
		if *ms < 0 || *ms > 60000 {
			return ds, nil, fmt.Errorf("settings: %s: diagnostics.settleMs must be between 0 and 60000", path)
		}
		ds.Settle = time.Duration(*ms) * time.Millisecond
	}
	for name, c := range s.LSP.Servers {
		if !c.Disabled && len(c.Command) == 0 && !known(name) {
			return ds, nil, fmt.Errorf("settings: %s: lsp.servers.%s needs a command", path, name)
		}
	}
	return ds, langserver.Resolve(s.LSP.Servers, nil), nil
}

func known(name string) bool {
	for _, d := range langserver.Defaults() {
		if d.Name == name {
			return true
		}
	}
	return false
}
