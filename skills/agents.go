package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
)

// Where an agent definition was found (AgentDef.Source).
const (
	AgentSourceBuiltin       = "builtin"
	AgentSourceUser          = "user"           // ~/.pi/agent/agents
	AgentSourceProject       = "project"        // <cwd>/.pi/agents
	AgentSourceClaudeProject = "claude-project" // <cwd>/.claude/agents
)

// Agent definition modes (the frontmatter's mode, OpenCode's values): a
// "primary" definition is not offered as a subagent.
const (
	AgentModeSubagent = "subagent"
	AgentModeAll      = "all"
	AgentModePrimary  = "primary"
)

// Names of the built-in agent definitions.
const (
	AgentGeneral = "general"
	AgentExplore = "explore"
	AgentReview  = "review"
)

// ReadOnlyTools are the tools of the built-in explore and review agents.
var ReadOnlyTools = []string{"read", "grep", "find", "ls"}

// AgentDef is one subagent definition: Markdown with YAML frontmatter
// {name, description, tools?, model?, mode?, thinking?}; the body is the
// child's system prompt.
type AgentDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tools limits the child to these tool names; nil means all of the
	// parent's tools (except subagent).
	Tools []string `json:"tools,omitempty"`
	// Model is "provider/id", or "" to inherit the parent's model.
	Model    string `json:"model,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	Prompt   string `json:"prompt"`
	Path     string `json:"path,omitempty"`
	Source   string `json:"source"`
}

// AgentSources says where to look for agent definitions.
type AgentSources struct {
	Home string // ~/.pi/agent: agents/*.md
	Cwd  string // project: .pi/agents/*.md and .claude/agents/*.md
	// KnownTools are the tool names a definition may ask for; a name not in
	// it is dropped with a diagnostic. Nil accepts every name.
	KnownTools []string
	// ModelAliases maps Claude Code's model names (sonnet, opus, haiku) to
	// "provider/id". An alias missing here falls back to inherit.
	ModelAliases map[string]string
}

// AgentsResult is what LoadAgents found.
type AgentsResult struct {
	Agents      []AgentDef   `json:"agents"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Agent returns the definition called name.
func (r AgentsResult) Agent(name string) (AgentDef, bool) {
	for _, a := range r.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return AgentDef{}, false
}

// Names lists the definitions' names in order.
func (r AgentsResult) Names() []string {
	out := make([]string, len(r.Agents))
	for i, a := range r.Agents {
		out[i] = a.Name
	}
	return out
}

// Problems returns the error diagnostics of the file at path: a definition
// that failed validation, for the subagent tool's error text.
func (r AgentsResult) Problems(path string) []string {
	var out []string
	for _, d := range r.Diagnostics {
		if d.Path == path && d.Severity == SeverityError {
			out = append(out, d.Message)
		}
	}
	return out
}

// BrokenAgent returns the path of a definition file named name (its file
// stem) that failed validation, if there is one.
func (r AgentsResult) BrokenAgent(name string) (string, bool) {
	for _, d := range r.Diagnostics {
		if d.Severity == SeverityError && strings.TrimSuffix(filepath.Base(d.Path), ".md") == name {
			return d.Path, true
		}
	}
	return "", false
}

// claudeTools maps Claude Code's tool names to pi-lsp's.
var claudeTools = map[string]string{
	"Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit",
	"Bash": "bash", "Grep": "grep", "Glob": "find", "LS": "ls",
}

// BuiltinAgents are general, explore and review.
func BuiltinAgents() []AgentDef {
	return []AgentDef{
		{Name: AgentGeneral, Source: AgentSourceBuiltin,
			Description: "General-purpose agent for multi-step tasks: researching, searching and changing code. It has all of your tools except subagent.",
			Prompt: "You are a subagent of a coding agent. You were given one task by the main agent: carry it out with your tools, " +
				"then answer with a complete, self-contained report of what you found or did. The main agent sees only your final answer, not your tool calls."},
		{Name: AgentExplore, Source: AgentSourceBuiltin, Tools: ReadOnlyTools,
			Description: "Fast read-only agent for searching and reading code: finding files, definitions and usages, and answering questions about the codebase.",
			Prompt: "You are an explore subagent: you search and read code, and you never change anything. Use grep, find, ls and read to answer the task. " +
				"Answer with the facts the main agent asked for, with file paths and line numbers; be concise."},
		{Name: AgentReview, Source: AgentSourceBuiltin, Tools: ReadOnlyTools,
			Description: "Read-only code reviewer: an unbiased second look at a change or a file, reporting bugs, risks and missing tests.",
			Prompt: "You are a code reviewer with a fresh pair of eyes: you have none of the main agent's history, only the task. Read the code in question " +
				"and report real problems: bugs, unhandled errors, races, security issues, missing tests, unclear names. For each, give the file and line, " +
				"why it is wrong and a fix. Say plainly when you found nothing serious. You cannot edit files."},
	}
}

// LoadAgents returns the built-in definitions overlaid by the user's
// (~/.pi/agent/agents), then the project's Claude Code definitions
// (.claude/agents), then the project's (.pi/agents): for two definitions of
// one name the later source wins, with a notice. Every problem is a
// Diagnostic; the error is non-nil only when ctx ends.
func LoadAgents(ctx context.Context, fsys FS, src AgentSources) (AgentsResult, error) {
	l := &agentLoader{src: src, byName: map[string]int{}}
	if src.KnownTools != nil {
		l.known = map[string]bool{}
		for _, n := range src.KnownTools {
			l.known[n] = true
		}
	}
	for _, a := range BuiltinAgents() {
		l.add(a)
	}
	dirs := []struct{ dir, source string }{
		{joinIf(src.Home, "agents"), AgentSourceUser},
		{joinIf(src.Cwd, ".claude", "agents"), AgentSourceClaudeProject},
		{joinIf(src.Cwd, ".pi", "agents"), AgentSourceProject},
	}
	for _, d := range dirs {
		if d.dir == "" {
			continue
		}
		l.loadDir(ctx, fsys, d.dir, d.source)
		if err := ctx.Err(); err != nil {
			return AgentsResult{}, fmt.Errorf("load agents: %w", err)
		}
	}
	return AgentsResult{Agents: l.agents, Diagnostics: l.diags}, nil
}

type agentLoader struct {
	src    AgentSources
	known  map[string]bool
	agents []AgentDef
	byName map[string]int
	diags  []Diagnostic
}

func (l *agentLoader) diag(path string, line int, sev, format string, a ...any) {
	l.diags = append(l.diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: sev})
}

// add adds a or replaces the definition of the same name, with a notice.
func (l *agentLoader) add(a AgentDef) {
	if i, ok := l.byName[a.Name]; ok {
		old := l.agents[i]
		where := old.Path
		if where == "" {
			where = "the built-in"
		}
		l.diag(a.Path, 0, SeverityWarning, "agent %q is defined again: this %s definition overrides %s", a.Name, a.Source, where)
		l.agents[i] = a
		return
	}
	l.byName[a.Name] = len(l.agents)
	l.agents = append(l.agents, a)
}

func (l *agentLoader) loadDir(ctx context.Context, fsys FS, dir, source string) {
	entries, err := fsys.ReadDir(ctx, dir)
	if err != nil {
		if c := env.CodeOf(err); c != env.CodeNotFound && c != env.CodeNotDirectory {
			l.diag(dir, 0, SeverityError, "cannot list agents directory: %v", err)
		}
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		if !strings.HasSuffix(e.Name, ".md") || strings.HasPrefix(e.Name, ".") {
			continue
		}
		path := filepath.Join(dir, e.Name)
		if e.IsDir {
			continue
		}
		data, err := fsys.ReadFile(ctx, path)
		if err != nil {
			l.diag(path, 0, SeverityError, "cannot read agent definition: %v", err)
			continue
		}
		a, diags := ParseAgent(path, string(data), source, l.known, l.src.ModelAliases)
		l.diags = append(l.diags, diags...)
		if a == nil {
			continue
		}
		if a.Mode == AgentModePrimary {
			l.diag(path, 0, SeverityWarning, "agent %q has mode primary: it is not offered as a subagent", a.Name)
			continue
		}
		l.add(*a)
	}
}

var validThinking = map[string]bool{"off": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true}

// ParseAgent parses one definition file. source says which shape it has:
// AgentSourceClaudeProject reads Claude Code's (tools as a comma-separated
// string of Claude tool names, model an alias). known (nil = any) are the
// tool names a definition may use; aliases map Claude model names. A nil
// definition means it failed validation; the diagnostics say why.
func ParseAgent(path, content, source string, known map[string]bool, aliases map[string]string) (*AgentDef, []Diagnostic) {
	var diags []Diagnostic
	warn := func(line int, format string, a ...any) {
		diags = append(diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: SeverityWarning})
	}
	drop := func(line int, format string, a ...any) (*AgentDef, []Diagnostic) {
		diags = append(diags, Diagnostic{Path: path, Line: line, Message: fmt.Sprintf(format, a...), Severity: SeverityError})
		return nil, diags
	}
	fm, problem, line := parseFrontmatter(content)
	if problem != "" {
		return drop(line, "%s", problem)
	}
	for _, w := range fm.warnings {
		warn(w.line, "%s", w.message)
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".md")
	name, present, ok := fm.str("name")
	if !ok {
		return drop(fm.line("name"), "name must be a string")
	}
	if !present || strings.TrimSpace(name) == "" {
		name = stem
	}
	if errs := validateName(name, name, ""); len(errs) > 0 {
		return drop(fm.line("name"), "%s", strings.Join(errs, "; "))
	}
	if name != stem {
		warn(fm.line("name"), "name %q does not match file name %q", name, stem)
	}
	desc, _, ok := fm.str("description")
	if !ok {
		return drop(fm.line("description"), "description must be a string")
	}
	if strings.TrimSpace(desc) == "" {
		return drop(fm.line("description"), "description is required: the main agent chooses a subagent by it")
	}
	if n := len([]rune(desc)); n > MaxDescriptionLength {
		warn(fm.line("description"), "description exceeds %d characters (%d)", MaxDescriptionLength, n)
	}
	if strings.TrimSpace(fm.body) == "" {
		return drop(0, "the body is empty: it is the subagent's system prompt")
	}
	a := &AgentDef{Name: name, Description: desc, Prompt: fm.body, Path: path, Source: source}

	claude := source == AgentSourceClaudeProject
	if _, present := fm.fields["tools"]; present {
		var names []string
		if claude {
			s, _, ok := fm.str("tools")
			if !ok {
				if ws, _, ok2 := fm.words("tools"); ok2 {
					s, ok = strings.Join(ws, ","), true
				}
			}
			if !ok {
				return drop(fm.line("tools"), "tools must be a comma-separated string of Claude Code tool names")
			}
			for _, t := range strings.Split(s, ",") {
				t = strings.TrimSpace(t)
				if t == "" {
					continue
				}
				if mapped, ok := claudeTools[t]; ok {
					names = append(names, mapped)
				} else {
					warn(fm.line("tools"), "unknown Claude Code tool %q dropped (known: Read, Write, Edit, MultiEdit, Bash, Grep, Glob, LS)", t)
				}
			}
		} else {
			ws, _, ok := fm.words("tools")
			if !ok {
				return drop(fm.line("tools"), "tools must be a list of tool names")
			}
			for _, w := range ws {
				for _, t := range strings.Split(w, ",") {
					if t = strings.TrimSpace(t); t != "" {
						names = append(names, t)
					}
				}
			}
		}
		seen := map[string]bool{}
		a.Tools = []string{}
		for _, t := range names {
			switch {
			case seen[t]:
			case t == "subagent":
				warn(fm.line("tools"), "tool \"subagent\" dropped: a subagent cannot start subagents (depth 1)")
			case known != nil && !known[t]:
				warn(fm.line("tools"), "unknown tool %q dropped", t)
			default:
				a.Tools = append(a.Tools, t)
			}
			seen[t] = true
		}
	}
	if m, _, ok := fm.str("model"); !ok {
		warn(fm.line("model"), "model must be a string; the parent's model is used")
	} else if m = strings.TrimSpace(m); m != "" && m != "inherit" {
		switch {
		case aliases[m] != "":
			a.Model = aliases[m]
		case claude || !strings.Contains(m, "/"):
			warn(fm.line("model"), "model %q is not provider/id nor a configured alias (subagents.modelAliases); the parent's model is used", m)
		default:
			a.Model = m
		}
	}
	if m, _, ok := fm.str("mode"); !ok {
		warn(fm.line("mode"), "mode must be a string")
	} else if m != "" {
		switch m {
		case AgentModeSubagent, AgentModeAll, AgentModePrimary:
			a.Mode = m
		default:
			warn(fm.line("mode"), "unknown mode %q ignored (want subagent, all or primary)", m)
		}
	}
	if th, _, ok := fm.str("thinking"); !ok {
		warn(fm.line("thinking"), "thinking must be a string")
	} else if th != "" {
		if validThinking[th] {
			a.Thinking = th
		} else {
			warn(fm.line("thinking"), "unknown thinking level %q ignored (want off, low, medium, high or xhigh)", th)
		}
	}
	return a, diags
}

// FormatAgents is the system prompt's block that lists the subagents the
// model may delegate to ("" when there are none).
func FormatAgents(agents []AgentDef) string {
	if len(agents) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nThe subagent tool delegates a task to a subagent that runs to its end and returns its final answer. " +
		"Use one for a focused search, an unbiased review, or independent work that would fill your context; several subagent calls in one message run at the same time. " +
		"fork: true clones this conversation into the subagent instead of starting it fresh.\n\n<available_agents>")
	for _, a := range agents {
		b.WriteString("\n  <agent>")
		b.WriteString("\n    <name>" + escapeXML(a.Name) + "</name>")
		b.WriteString("\n    <description>" + escapeXML(a.Description) + "</description>")
		if a.Tools != nil {
			b.WriteString("\n    <tools>" + escapeXML(strings.Join(a.Tools, ", ")) + "</tools>")
		}
		b.WriteString("\n  </agent>")
	}
	b.WriteString("\n</available_agents>")
	return b.String()
}
