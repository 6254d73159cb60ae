package protocol

// Skill is one skill of skills/list.
type Skill struct {
	Name                   string         `json:"name"`
	Description            string         `json:"description"`
	Path                   string         `json:"path"`
	BaseDir                string         `json:"baseDir"`
	Source                 string         `json:"source"` // user | project | path
	DisableModelInvocation bool           `json:"disableModelInvocation"`
	License                string         `json:"license,omitempty"`
	Compatibility          string         `json:"compatibility,omitempty"`
	Metadata               map[string]any `json:"metadata,omitempty"` // the frontmatter's own metadata, as written
	AllowedTools           []string       `json:"allowedTools,omitempty"`
}

// SkillsListResult is the result of skills/list. Its diagnostics are the
// same Diagnostic as agents/list's (subagent.go).
type SkillsListResult struct {
	Skills      []Skill      `json:"skills"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Template is one prompt template of templates/list.
type Template struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Path         string `json:"path"`
	Source       string `json:"source"`
	Body         string `json:"body"`
	ArgumentHint string `json:"argumentHint,omitempty"`
}

// TemplatesListResult is the result of templates/list.
type TemplatesListResult struct {
	Templates []Template `json:"templates"`
}

// Command is one slash command of commands/list.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Kind         string `json:"kind"` // template | skill
	Source       string `json:"source"`
	Path         string `json:"path"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Method is the request a built-in command runs (the editor runs it
	// itself).
	Method string `json:"method,omitempty"`
}

// CommandsListResult is the result of commands/list.
type CommandsListResult struct {
	Commands []Command `json:"commands"`
}
