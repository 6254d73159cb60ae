package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/mcp"
)

// commandHooks reads the "hooks" of the user's settings (pi-lsp.json) and
// of the project's .pi/pi-lsp.json. Project hooks run after a one-time
// approval remembered in the user's file.
func commandHooks(cwd string) *harness.CommandHooks {
	ch := &harness.CommandHooks{Trust: mcp.NewTrust(settingsPath())}
	for _, f := range []struct{ path, source string }{
		{settingsPath(), "user"},
		{filepath.Join(cwd, ".pi", "pi-lsp.json"), "project"},
	} {
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			ch.Diagnostics = append(ch.Diagnostics, harness.HookDiagnostic{File: f.path, Message: err.Error()})
			continue
		}
		hs, diags := harness.ParseHooks(data, f.path, f.source)
		ch.Hooks = append(ch.Hooks, hs...)
		ch.Diagnostics = append(ch.Diagnostics, diags...)
	}
	if len(ch.Hooks) == 0 && len(ch.Diagnostics) == 0 {
		return nil
	}
	return ch
}
