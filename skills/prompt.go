package skills

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ToolInfo is what the system prompt says about one active tool.
type ToolInfo struct {
	Name string
	// Description's first line is the tool's entry under "Available tools".
	Description string
	// Guideline lines (one per line) join the prompt's Guidelines list.
	Guideline string
}

// PromptInput is everything the system prompt is built from. The harness
// fills it afresh on every turn.
type PromptInput struct {
	// Base replaces the built-in introduction, tool list and guidelines
	// ("" = built-in default), as pi's custom system prompt does.
	Base string
	// Mode is build, plan or fast; "" leaves the mode section out.
	Mode string
	// ModePrompt replaces the built-in text of the mode section.
	ModePrompt   string
	Tools        []ToolInfo
	Cwd          string
	Date         time.Time
	ContextFiles []ContextFile
	Skills       []Skill
	// AppendSystem is added after the base (pi's --append-system-prompt).
	AppendSystem string
	// Agents are the subagent definitions, listed when the subagent tool
	// is active.
	Agents []AgentDef
}

// Modes with a built-in prompt.
const (
	ModeBuild = "build"
	ModePlan  = "plan"
	ModeFast  = "fast"
)

const defaultIntro = "You are an expert coding assistant operating inside pi-lsp, a coding agent harness. " +
	"You help users by reading files, executing commands, editing code, and writing new files."

// modePrompt is the built-in text of a mode, following the second seed's
// description of Mastra Code's modes ("" for an unknown mode).
func modePrompt(mode string) string {
	switch mode {
	case ModeBuild:
		return `You are in Build mode, the default: you have full tool access. Carry simple tasks out directly. For a task with several steps, keep a task list with the task tools (task_write, task_update, task_complete) and check it (task_check) before you say you are done.`
	case ModePlan:
		return `You are in Plan mode, which is read-only: explore and read, but do not modify files or run commands that change anything. Produce a plan with this shape:
1. Overview: what will change and why.
2. Complexity: size, risk and dependencies.
3. Steps, in order: for each, the file, the change and why.
4. Verification: a checklist that proves the work is done.
Then submit the plan for approval with submit_plan. Once it is approved you will switch to Build mode and carry it out.`
	case ModeFast:
		return `You are in Fast mode: answer quickly and concisely, without a planning phase. Answer general programming questions from your own knowledge; read the project's code only when the question is about this project.`
	}
	return ""
}

// BuildSystemPrompt assembles the system prompt in pi's order: the base
// (introduction, tools, guidelines), the mode, AppendSystem, the project
// context files, the available skills (only when the read tool is active,
// since the model needs it to load a skill), then the date and cwd. The
// same input always gives the same text.
func BuildSystemPrompt(in PromptInput) string {
	var b strings.Builder
	hasRead, hasSubagent := false, false
	for _, t := range in.Tools {
		switch t.Name {
		case "read":
			hasRead = true
		case "subagent":
			hasSubagent = true
		}
	}
	if in.Base != "" {
		b.WriteString(in.Base)
	} else {
		writeDefaultBase(&b, in.Tools)
	}
	if text := modeText(in); text != "" {
		b.WriteString("\n\n# Mode: ")
		b.WriteString(modeTitle(in.Mode))
		b.WriteString("\n\n")
		b.WriteString(text)
	}
	if in.AppendSystem != "" {
		b.WriteString("\n\n")
		b.WriteString(in.AppendSystem)
	}
	if len(in.ContextFiles) > 0 {
		b.WriteString("\n\n# Project Context\n\n")
		b.WriteString("Project-specific instructions and guidelines:\n\n")
		for _, f := range in.ContextFiles {
			b.WriteString("## " + f.Path + "\n\n" + f.Content + "\n\n")
		}
	}
	if hasRead {
		b.WriteString(FormatSkills(in.Skills))
	}
	if hasSubagent {
		b.WriteString(FormatAgents(in.Agents))
	}
	b.WriteString("\nCurrent date: " + in.Date.Format("2006-01-02"))
	b.WriteString("\nCurrent working directory: " + strings.ReplaceAll(in.Cwd, `\`, "/"))
	return b.String()
}

func writeDefaultBase(b *strings.Builder, tools []ToolInfo) {
	b.WriteString(defaultIntro)
	b.WriteString("\n\nAvailable tools:\n")
	if len(tools) == 0 {
		b.WriteString("(none)")
	}
	has := map[string]bool{}
	for i, t := range tools {
		has[t.Name] = true
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("- " + t.Name)
		if d := firstNonBlank(t.Description); d != "" {
			b.WriteString(": " + d)
		}
	}
	b.WriteString("\n\nIn addition to the tools above, you may have access to other custom tools depending on the project.")

	var guides []string
	seen := map[string]bool{}
	add := func(g string) {
		if g = strings.TrimSpace(g); g != "" && !seen[g] {
			seen[g] = true
			guides = append(guides, g)
		}
	}
	explore := has["grep"] || has["find"] || has["ls"]
	switch {
	case has["bash"] && !explore:
		add("Use bash for file operations like ls, rg, find")
	case has["bash"] && explore:
		add("Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)")
	}
	for _, t := range tools {
		for _, g := range strings.Split(t.Guideline, "\n") {
			add(g)
		}
	}
	add("Be concise in your responses")
	add("Show file paths clearly when working with files")
	b.WriteString("\n\nGuidelines:")
	for _, g := range guides {
		b.WriteString("\n- " + g)
	}
}

func modeText(in PromptInput) string {
	if in.ModePrompt != "" {
		return strings.TrimSpace(in.ModePrompt)
	}
	return modePrompt(in.Mode)
}

func modeTitle(mode string) string {
	if mode == "" {
		return "Custom"
	}
	r, size := utf8.DecodeRuneInString(mode)
	return string(unicode.ToUpper(r)) + mode[size:]
}

func firstNonBlank(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// FormatSkills is pi's <available_skills> block (with its leading blank
// line), listing the skills the model may load by itself; skills with
// disable-model-invocation are left out. "" when none is left.
func FormatSkills(skills []Skill) string {
	var b strings.Builder
	n := 0
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		if n == 0 {
			b.WriteString("\n\nThe following skills provide specialized instructions for specific tasks.\n" +
				"Use the read tool to load a skill's file when the task matches its description.\n" +
				"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n" +
				"\n<available_skills>")
		}
		n++
		b.WriteString("\n  <skill>")
		b.WriteString("\n    <name>" + escapeXML(s.Name) + "</name>")
		b.WriteString("\n    <description>" + escapeXML(s.Description) + "</description>")
		b.WriteString("\n    <location>" + escapeXML(s.Path) + "</location>")
		b.WriteString("\n  </skill>")
	}
	if n > 0 {
		b.WriteString("\n</available_skills>")
	}
	return b.String()
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }
