package skills

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func loadAgentsIn(t *testing.T, tr tree, known []string, aliases map[string]string) AgentsResult {
	t.Helper()
	root := t.TempDir()
	tr.write(t, root)
	r, err := LoadAgents(context.Background(), env.NewLocal(root), AgentSources{
		Home: root + "/home", Cwd: root + "/proj", KnownTools: known, ModelAliases: aliases,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func diagText(r AgentsResult) string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		b.WriteString(d.Severity + ": " + d.Message + "\n")
	}
	return b.String()
}

func TestAgentsBuiltinsAndPrecedence(t *testing.T) {
	known := []string{"read", "write", "edit", "bash", "grep", "find", "ls"}
	r := loadAgentsIn(t, tree{
		"home/agents/docs.md":          "---\nname: docs\ndescription: user docs\n---\nUser prompt.\n",
		"home/agents/mine.md":          "---\ndescription: only the user's\ntools: [read, subagent, grep, read]\nthinking: high\n---\nMine.\n",
		"proj/.claude/agents/docs.md":  "---\nname: docs\ndescription: claude docs\n---\nClaude prompt.\n",
		"proj/.pi/agents/docs.md":      "---\nname: docs\ndescription: project docs\ntools: read, write\nmodel: fake/m2\n---\nProject prompt.\n",
		"proj/.pi/agents/lead.md":      "---\ndescription: a primary agent\nmode: primary\n---\nLead.\n",
		"proj/.pi/agents/notes.txt":    "not a definition",
		"proj/.claude/agents/cc.md":    "---\nname: cc\ndescription: cc\ntools: Read, MultiEdit, Edit, Glob, LS, Task\nmodel: sonnet\n---\nCC.\n",
		"proj/.claude/agents/haiku.md": "---\nname: haiku\ndescription: h\nmodel: haiku\n---\nH.\n",
	}, known, map[string]string{"sonnet": "fake/m1"})
	if got := r.Names(); !slices.Equal(got, []string{"general", "explore", "review", "docs", "mine", "cc", "haiku"}) {
		t.Fatalf("names %v\n%s", got, diagText(r))
	}
	docs, _ := r.Agent("docs")
	if docs.Source != AgentSourceProject || docs.Description != "project docs" || docs.Prompt != "Project prompt." ||
		!slices.Equal(docs.Tools, []string{"read", "write"}) || docs.Model != "fake/m2" {
		t.Fatalf("docs: %+v", docs)
	}
	mine, _ := r.Agent("mine")
	if !slices.Equal(mine.Tools, []string{"read", "grep"}) || mine.Thinking != "high" || mine.Source != AgentSourceUser {
		t.Fatalf("mine: %+v", mine)
	}
	cc, _ := r.Agent("cc")
	if !slices.Equal(cc.Tools, []string{"read", "edit", "find", "ls"}) || cc.Model != "fake/m1" {
		t.Fatalf("cc: %+v", cc)
	}
	if h, _ := r.Agent("haiku"); h.Model != "" || h.Tools != nil {
		t.Fatalf("haiku (no alias: inherit; no tools: all): %+v", h)
	}
	if ex, _ := r.Agent("explore"); !slices.Equal(ex.Tools, ReadOnlyTools) {
		t.Fatalf("explore: %+v", ex)
	}
	d := diagText(r)
	for _, want := range []string{
		`agent "docs" is defined again: this claude-project definition overrides`,
		`agent "docs" is defined again: this project definition overrides`,
		`tool "subagent" dropped`,
		`unknown Claude Code tool "Task" dropped`,
		`model "haiku" is not provider/id nor a configured alias`,
		`agent "lead" has mode primary`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, d)
		}
	}
}

func TestAgentValidation(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"nodesc", "---\nname: nodesc\n---\nBody.\n", "description is required"},
		{"nobody", "---\ndescription: d\n---\n\n", "the body is empty"},
		{"badyaml", "---\ndescription: [unclosed\n---\nBody\n", "invalid YAML frontmatter"},
		{"open", "---\ndescription: d\nBody\n", "never closed"},
		{"Bad_Name", "---\ndescription: d\n---\nBody\n", "invalid characters"},
		{"desclist", "---\ndescription: [a, b]\n---\nBody\n", "description must be a string"},
	}
	for _, c := range cases {
		a, diags := ParseAgent("/x/"+c.name+".md", c.content, AgentSourceProject, nil, nil)
		if a != nil {
			t.Errorf("%s: loaded %+v", c.name, a)
			continue
		}
		if len(diags) == 0 || !strings.Contains(diags[len(diags)-1].Message, c.want) || diags[len(diags)-1].Severity != SeverityError {
			t.Errorf("%s: diagnostics %+v, want %q", c.name, diags, c.want)
		}
	}
	r := AgentsResult{Diagnostics: []Diagnostic{{Path: "/p/.pi/agents/broken.md", Message: "description is required", Severity: SeverityError}}}
	if p, ok := r.BrokenAgent("broken"); !ok || p != "/p/.pi/agents/broken.md" || r.Problems(p)[0] != "description is required" {
		t.Fatalf("BrokenAgent: %q %v", p, ok)
	}
}

func TestAgentsInTheSystemPrompt(t *testing.T) {
	in := PromptInput{Tools: []ToolInfo{{Name: "read"}, {Name: "subagent"}}, Agents: BuiltinAgents()}
	p := BuildSystemPrompt(in)
	if !strings.Contains(p, "<available_agents>") || !strings.Contains(p, "<name>explore</name>") || !strings.Contains(p, "<tools>read, grep, find, ls</tools>") {
		t.Fatalf("prompt: %s", p)
	}
	in.Tools = in.Tools[:1]
	if strings.Contains(BuildSystemPrompt(in), "available_agents") {
		t.Fatal("agents listed without the subagent tool")
	}
}

// FuzzParseAgent: any file content gives a definition or diagnostics, never
// a panic, and a definition always has a name, a description and a prompt.
func FuzzParseAgent(f *testing.F) {
	f.Add("---\nname: a\ndescription: d\ntools: [read]\n---\nBody\n", false)
	f.Add("---\ndescription: d\ntools: Read, Bash\nmodel: opus\n---\nB", true)
	f.Add("---\n&a [x]: *a\n---\n", false)
	f.Fuzz(func(t *testing.T, content string, claude bool) {
		src := AgentSourceProject
		if claude {
			src = AgentSourceClaudeProject
		}
		a, diags := ParseAgent("/d/a.md", content, src, map[string]bool{"read": true, "bash": true}, map[string]string{"opus": "x/y"})
		if a == nil {
			if len(diags) == 0 {
				t.Fatal("dropped without a diagnostic")
			}
			return
		}
		if a.Name == "" || strings.TrimSpace(a.Description) == "" || strings.TrimSpace(a.Prompt) == "" {
			t.Fatalf("incomplete definition %+v", a)
		}
		for _, tool := range a.Tools {
			if tool != "read" && tool != "bash" {
				t.Fatalf("unknown tool kept: %q", tool)
			}
		}
	})
}
