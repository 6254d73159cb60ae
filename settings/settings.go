// Package settings loads pi-lsp's settings files: the user's own
// (~/.pi/agent/pi-lsp.json, or $PI_LSP_SETTINGS) and a project's
// (<cwd>/.pi/pi-lsp.json). Anything that widens what the agent may do is
// read only from the user's file; a project file may only narrow (a deny, a
// stricter sandbox), and a widening key found there is ignored with a
// notice naming it. It imports no other pi-lsp package.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// File is one settings file as written. Fields pi-lsp does not know are
// kept in Raw for other readers (compaction budgets, MCP, hooks).
type File struct {
	Permissions *Permissions `json:"permissions,omitempty"`
	Sandbox     *Sandbox     `json:"sandbox,omitempty"`
	// Raw holds every top-level key of the file, decoded or not.
	Raw map[string]json.RawMessage `json:"-"`
}

// Permissions is the permissions section.
type Permissions struct {
	// Roots are workspace roots besides the session's cwd (widening).
	Roots []string `json:"roots,omitempty"`
	// OutsideWorkspace is "ask" (the default) or "allow" (widening): tools
	// reach paths outside the workspace without asking.
	OutsideWorkspace string `json:"outsideWorkspace,omitempty"`
	// Tools and Categories are standing policies (allow|ask|deny); allow
	// is widening, ask and deny narrow.
	Tools      map[string]string `json:"tools,omitempty"`
	Categories map[string]string `json:"categories,omitempty"`
}

// Sandbox is the sandbox section.
type Sandbox struct {
	// Mode is workspace-write (the default), read-only or off. A less
	// strict mode than the user's is widening.
	Mode string `json:"mode,omitempty"`
	// Network false denies TCP (narrowing); true is widening.
	Network *bool `json:"network,omitempty"`
	// Required true refuses unsandboxed commands (narrowing).
	Required *bool `json:"required,omitempty"`
	// Writable are extra writable directories of workspace-write
	// (widening); unset means the build caches.
	Writable []string `json:"writable,omitempty"`
}

// Settings are the merged settings in force and what the user must be told
// about them.
type Settings struct {
	Permissions Permissions
	Sandbox     Sandbox
	// User and Project are the files as read (nil when absent).
	User, Project *File
	// Notices name the widening keys ignored in the project file.
	Notices []string
}

// UserPath is the user's settings file: $PI_LSP_SETTINGS, else
// ~/.pi/agent/pi-lsp.json.
func UserPath() string {
	if p := os.Getenv("PI_LSP_SETTINGS"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".pi", "agent", "pi-lsp.json")
}

// ProjectPath is a project's settings file under cwd.
func ProjectPath(cwd string) string { return filepath.Join(cwd, ".pi", "pi-lsp.json") }

// ReadFile reads one settings file; a missing file is (nil, nil) and a
// broken one an error naming it.
func ReadFile(path string) (*File, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &f.Raw); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("settings: %s: %w", path, err)
	}
	return &f, nil
}

func (f *File) validate() error {
	if p := f.Permissions; p != nil {
		switch p.OutsideWorkspace {
		case "", "ask", "allow":
		default:
			return fmt.Errorf("permissions.outsideWorkspace %q: want ask|allow", p.OutsideWorkspace)
		}
		for _, m := range []map[string]string{p.Tools, p.Categories} {
			for k, v := range m {
				switch v {
				case "allow", "ask", "deny":
				default:
					return fmt.Errorf("permissions: %s: policy %q: want allow|ask|deny", k, v)
				}
			}
		}
	}
	if s := f.Sandbox; s != nil {
		switch s.Mode {
		case "", "workspace-write", "read-only", "off":
		default:
			return fmt.Errorf("sandbox.mode %q: want workspace-write|read-only|off", s.Mode)
		}
	}
	return nil
}

// Load reads the user's file and the project's and merges them: the user's
// file as written, then the narrowing keys of the project's. An empty path
// skips that file.
func Load(userPath, projectPath string) (Settings, error) {
	user, err := ReadFile(userPath)
	if err != nil {
		return Settings{}, err
	}
	var project *File
	if projectPath != "" && projectPath != userPath {
		if project, err = ReadFile(projectPath); err != nil {
			return Settings{}, err
		}
	}
	s := Settings{User: user, Project: project}
	if user != nil {
		if user.Permissions != nil {
			s.Permissions = clonePerms(*user.Permissions)
		}
		if user.Sandbox != nil {
			s.Sandbox = *user.Sandbox
		}
	}
	if project != nil {
		s.narrow(project, projectPath)
	}
	return s, nil
}

func clonePerms(p Permissions) Permissions {
	out := p
	out.Roots = append([]string(nil), p.Roots...)
	out.Tools, out.Categories = map[string]string{}, map[string]string{}
	for k, v := range p.Tools {
		out.Tools[k] = v
	}
	for k, v := range p.Categories {
		out.Categories[k] = v
	}
	return out
}

// modeRank orders sandbox modes from least to most strict ("" is the
// default, workspace-write).
func modeRank(m string) int {
	switch m {
	case "off":
		return 0
	case "read-only":
		return 2
	}
	return 1
}

// narrow applies the narrowing keys of a project file and records a notice
// for each widening one. New widening keys (MCP server approvals, hooks)
// belong here too.
func (s *Settings) narrow(f *File, path string) {
	ignored := []string{}
	if p := f.Permissions; p != nil {
		if len(p.Roots) > 0 {
			ignored = append(ignored, "permissions.roots")
		}
		if p.OutsideWorkspace == "allow" {
			ignored = append(ignored, "permissions.outsideWorkspace")
		}
		if s.Permissions.Tools == nil {
			s.Permissions.Tools = map[string]string{}
		}
		if s.Permissions.Categories == nil {
			s.Permissions.Categories = map[string]string{}
		}
		for _, sec := range []struct {
			name     string
			from, to map[string]string
		}{{"tools", p.Tools, s.Permissions.Tools}, {"categories", p.Categories, s.Permissions.Categories}} {
			for _, k := range sortedKeys(sec.from) {
				v := sec.from[k]
				switch {
				case v == "deny":
					sec.to[k] = v
				case v == "ask" && sec.to[k] != "deny":
					sec.to[k] = v
				case v == "allow":
					ignored = append(ignored, "permissions."+sec.name+"."+k)
				}
			}
		}
	}
	if sb := f.Sandbox; sb != nil {
		if sb.Mode != "" {
			if modeRank(sb.Mode) >= modeRank(s.Sandbox.Mode) {
				s.Sandbox.Mode = sb.Mode
			} else {
				ignored = append(ignored, "sandbox.mode")
			}
		}
		if sb.Network != nil {
			if !*sb.Network {
				s.Sandbox.Network = sb.Network
			} else if s.Sandbox.Network != nil && !*s.Sandbox.Network {
				ignored = append(ignored, "sandbox.network")
			}
		}
		if sb.Required != nil {
			if *sb.Required {
				s.Sandbox.Required = sb.Required
			} else if s.Sandbox.Required != nil && *s.Sandbox.Required {
				ignored = append(ignored, "sandbox.required")
			}
		}
		if len(sb.Writable) > 0 {
			ignored = append(ignored, "sandbox.writable")
		}
	}
	for _, k := range ignored {
		s.Notices = append(s.Notices, fmt.Sprintf("%s: %s is ignored: a project settings file may only narrow what the agent may do; widening settings are read only from your own settings file (%s)", path, k, UserPath()))
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
