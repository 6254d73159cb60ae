package skills

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from the current output")

var (
	goldenDate = time.Date(2026, 5, 17, 23, 30, 0, 0, time.UTC)

	fullTools = []ToolInfo{
		{Name: "read", Description: "Read the contents of a file\nSupports offset and limit.", Guideline: "Use read to examine files before editing"},
		{Name: "bash", Description: "Execute a bash command in the current working directory"},
		{Name: "edit", Description: "Make surgical edits to files (find exact text and replace)", Guideline: "Use edit for precise changes (old text must match exactly)\nUse read to examine files before editing"},
		{Name: "write", Description: "Create or overwrite files", Guideline: "Use write only for new files or complete rewrites"},
	}
	planTools = []ToolInfo{
		{Name: "read", Description: "Read the contents of a file"},
		{Name: "grep", Description: "Search file contents for a pattern"},
		{Name: "find", Description: "Find files by glob pattern"},
		{Name: "ls", Description: "List directory contents"},
		{Name: "bash", Description: "Execute a bash command"},
		{Name: "submit_plan", Description: "Submit a plan for the user's approval", Guideline: "Call submit_plan once the plan is complete"},
	}
	goldenSkills = []Skill{
		{Name: "pdf-tools", Description: "Extract text & tables from PDF files. Use for <PDF> work.", Path: "/home/u/.pi/agent/skills/pdf-tools/SKILL.md"},
		{Name: "secret", Description: "Only by /skill:secret", Path: "/home/u/.pi/agent/skills/secret/SKILL.md", DisableModelInvocation: true},
		{Name: "review", Description: "Review a diff for bugs.", Path: "/work/proj/.pi/skills/review.md"},
	}
	goldenContext = []ContextFile{
		{Path: "/home/u/.pi/agent/AGENTS.md", Content: "Always answer in English."},
		{Path: "/work/proj/AGENTS.md", Content: "# Project rules\n\nRun `make test` before committing."},
	}
)

func TestBuildSystemPromptGolden(t *testing.T) {
	tests := []struct {
		name string
		in   PromptInput
	}{
		{"build_minimal", PromptInput{Mode: ModeBuild, Tools: fullTools, Cwd: "/work/proj", Date: goldenDate}},
		{"build_skills_context", PromptInput{Mode: ModeBuild, Tools: fullTools, Cwd: "/work/proj", Date: goldenDate,
			ContextFiles: goldenContext, Skills: goldenSkills}},
		{"plan_skills_context_append", PromptInput{Mode: ModePlan, Tools: planTools, Cwd: "/work/proj", Date: goldenDate,
			ContextFiles: goldenContext, Skills: goldenSkills, AppendSystem: "Extra rule from --append-system-prompt."}},
		{"fast_no_tools", PromptInput{Mode: ModeFast, Cwd: "/work/proj", Date: goldenDate, Skills: goldenSkills}},
		{"no_mode_windows_cwd", PromptInput{Tools: fullTools[:2], Cwd: `C:\work\proj`, Date: goldenDate}},
		{"custom_base", PromptInput{Base: "You are a release assistant.", Mode: "review", ModePrompt: "  Review only; never edit.\n",
			Tools: fullTools, Cwd: "/work/proj", Date: goldenDate, ContextFiles: goldenContext[1:], Skills: goldenSkills,
			AppendSystem: "Appended."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := BuildSystemPrompt(tc.in)
			if again := BuildSystemPrompt(tc.in); again != got {
				t.Fatal("BuildSystemPrompt is not deterministic")
			}
			path := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run Golden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("prompt differs from %s (go test -run Golden -update rewrites it):\n%s", path, got)
			}
		})
	}
}

func TestBuildSystemPromptRules(t *testing.T) {
	base := PromptInput{Mode: ModeBuild, Tools: fullTools, Cwd: "/p", Date: goldenDate, Skills: goldenSkills}
	p := BuildSystemPrompt(base)
	for _, want := range []string{
		"<name>pdf-tools</name>",
		"<description>Extract text &amp; tables from PDF files. Use for &lt;PDF&gt; work.</description>",
		"Use the read tool to load a skill's file when the task matches its description.",
		"\nCurrent date: 2026-05-17\nCurrent working directory: /p",
		"# Mode: Build",
		"- read: Read the contents of a file\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "secret") {
		t.Error("a disable-model-invocation skill is listed")
	}
	if n := strings.Count(p, "Use read to examine files before editing"); n != 1 {
		t.Errorf("duplicate guideline appears %d times", n)
	}
	if !strings.HasSuffix(strings.TrimSpace(strings.Split(p, "</available_skills>")[0]), "</skill>") {
		t.Error("skills block malformed")
	}

	noRead := base
	noRead.Tools = fullTools[1:]
	if p := BuildSystemPrompt(noRead); strings.Contains(p, "<available_skills>") {
		t.Error("skills listed without the read tool")
	}
	allHidden := base
	allHidden.Skills = goldenSkills[1:2]
	if p := BuildSystemPrompt(allHidden); strings.Contains(p, "available_skills") {
		t.Error("empty skills block written")
	}
	unknown := base
	unknown.Mode = "mystery"
	if p := BuildSystemPrompt(unknown); strings.Contains(p, "# Mode") {
		t.Error("mode section for an unknown mode without a prompt")
	}
}
