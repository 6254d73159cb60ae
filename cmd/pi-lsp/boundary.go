package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	pisettings "github.com/pi-lsp/pi-lsp/settings"
)

// boundaryConfig is the workspace boundary and sandbox from the flags and
// the settings files.
type boundaryConfig struct {
	roots        []string
	allowOutside bool
	sandbox      env.SandboxSettings
	policies     harness.Policies
	notices      []string
}

// boundary merges --root, --allow-outside and --sandbox with the user's
// settings and the narrowing keys of the project's (cwd/.pi/pi-lsp.json).
func (c *common) boundary(cwd string) (boundaryConfig, error) {
	s, err := pisettings.Load(pisettings.UserPath(), pisettings.ProjectPath(cwd))
	if err != nil {
		return boundaryConfig{}, err
	}
	b := boundaryConfig{notices: s.Notices, allowOutside: c.allowOutside || s.Permissions.OutsideWorkspace == "allow"}
	home, _ := os.UserHomeDir()
	for _, r := range append(append([]string{}, c.roots...), s.Permissions.Roots...) {
		switch {
		case r == "~":
			r = home
		case strings.HasPrefix(r, "~/"):
			r = filepath.Join(home, r[2:])
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return boundaryConfig{}, fmt.Errorf("root %s: %w", r, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return boundaryConfig{}, fmt.Errorf("workspace root %s (permissions.roots in %s): %w", r, pisettings.UserPath(), err)
		}
		b.roots = append(b.roots, abs)
	}
	mode := env.SandboxWorkspaceWrite
	if s.Sandbox.Mode != "" {
		mode = env.SandboxMode(s.Sandbox.Mode)
	}
	if c.sandbox != "" {
		mode = env.SandboxMode(c.sandbox)
	}
	b.sandbox = env.SandboxSettings{Mode: mode, Writable: s.Sandbox.Writable}
	if s.Sandbox.Network != nil && !*s.Sandbox.Network {
		b.sandbox.NoNetwork = true
	}
	if s.Sandbox.Required != nil && *s.Sandbox.Required {
		b.sandbox.Required = true
	}
	b.policies = harness.Policies{Tools: map[string]harness.Policy{}, Categories: map[string]harness.Policy{}}
	for k, v := range s.Permissions.Tools {
		b.policies.Tools[k] = harness.Policy(v)
	}
	for k, v := range s.Permissions.Categories {
		b.policies.Categories[k] = harness.Policy(v)
	}
	return b, nil
}

// sandboxHelper is the executable that runs `__sandbox-exec`: this very
// binary. On Linux /proc/self/exe names it even after the file was replaced
// or removed (an upgrade while pi-lsp runs).
func sandboxHelper() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// runSandboxExec is the hidden helper subcommand: restrict this process
// with Landlock, then exec the shell command after "--". It returns only on
// failure.
func runSandboxExec(args []string) int {
	err := env.SandboxExec(args, os.Environ())
	fmt.Fprintf(os.Stderr, "pi-lsp: %v\n", err)
	return 126
}
