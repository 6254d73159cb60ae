package skills

import (
	"context"
	"path/filepath"

	"github.com/pi-lsp/pi-lsp/env"
)

// FS is the read-only part of env.FileSystem the loaders use.
type FS interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	Stat(ctx context.Context, path string) (env.FileInfo, error)
	Lstat(ctx context.Context, path string) (env.FileInfo, error)
	ReadDir(ctx context.Context, path string) ([]env.FileInfo, error)
	RealPath(ctx context.Context, path string) (string, error)
}

// Where a skill or template was found.
const (
	SourceUser    = "user"    // under Sources.Home
	SourceProject = "project" // under Sources.Cwd/.pi
	SourcePath    = "path"    // an explicit path (Sources.Extra)
)

// Diagnostic severities. A warning is a lapse that loading worked around:
// the item still loads, or was skipped in favour of another (a name
// collision, a broken symlink). An error means what Path names is broken or
// missing and was left out.
const (
	SeverityWarning = "warning"
	SeverityError   = "error"
)

// Skill is one loaded skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the skill's Markdown file (SKILL.md or a root .md file), as
	// discovered (symlinks not resolved).
	Path string `json:"path"`
	// BaseDir is the directory of Path; relative references in the skill
	// resolve against it.
	BaseDir string `json:"baseDir"`
	// Source is SourceUser, SourceProject or SourcePath.
	Source string `json:"source"`
	// DisableModelInvocation hides the skill from the system prompt; it can
	// still be invoked with /skill:name.
	DisableModelInvocation bool           `json:"disableModelInvocation"`
	License                string         `json:"license,omitempty"`
	Compatibility          string         `json:"compatibility,omitempty"`
	Metadata               map[string]any `json:"metadata,omitempty"`
	AllowedTools           []string       `json:"allowedTools,omitempty"`
}

// Diagnostic is a problem found while loading. Line is 1-based in Path, 0
// when unknown.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

// Template is one prompt template: /Name expands to Body with its
// arguments substituted.
type Template struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Source      string `json:"source"`
	Body        string `json:"body"`
	// ArgumentHint is the frontmatter argument-hint, shown in completion.
	ArgumentHint string `json:"argumentHint,omitempty"`
}

// Sources says where to look.
type Sources struct {
	// Home is the agent directory (~/.pi/agent): skills/ and prompts/ under
	// it are loaded. "" skips it.
	Home string
	// Cwd is the project directory: .pi/skills and .pi/prompts under it are
	// loaded. "" skips it. Relative Extra paths resolve against it.
	Cwd string
	// Extra are explicit skill paths, files or directories ($PI_LSP_SKILLS
	// split by the caller, then --skill flags). A leading ~ must already be
	// expanded (env.Env.Resolve does it).
	Extra []string
}

// Result is everything Load found.
type Result struct {
	Skills      []Skill      `json:"skills"`
	Templates   []Template   `json:"templates"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Skill returns the skill called name.
func (r Result) Skill(name string) (Skill, bool) {
	for _, s := range r.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Template returns the template called name.
func (r Result) Template(name string) (Template, bool) {
	for _, t := range r.Templates {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}

func (s Sources) userSkills() string     { return joinIf(s.Home, "skills") }
func (s Sources) userPrompts() string    { return joinIf(s.Home, "prompts") }
func (s Sources) projectSkills() string  { return joinIf(s.Cwd, ".pi", "skills") }
func (s Sources) projectPrompts() string { return joinIf(s.Cwd, ".pi", "prompts") }

func joinIf(base string, elem ...string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// resolve makes an Extra path absolute against Cwd.
func (s Sources) resolve(p string) string {
	if filepath.IsAbs(p) || s.Cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(s.Cwd, p)
}

// WatchDirs lists the paths whose changes can change Load's result: the
// four skill and prompt directories and the Extra paths. Pass it to Watch.
func (s Sources) WatchDirs() []string {
	var out []string
	for _, d := range []string{s.userSkills(), s.userPrompts(), s.projectSkills(), s.projectPrompts()} {
		if d != "" {
			out = append(out, d)
		}
	}
	for _, p := range s.Extra {
		if p != "" {
			out = append(out, s.resolve(p))
		}
	}
	return out
}
