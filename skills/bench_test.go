package skills

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

// BenchmarkLoad measures a load of 200 skills in nested directories with
// ignore files, plus 50 templates: what the harness pays after a change.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	tr := tree{"home/skills/.gitignore": "drafts/\n", "home/skills/group/.ignore": "*.tmp\n"}
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		tr[fmt.Sprintf("home/skills/group/g%d/%s/SKILL.md", i%10, name)] = skillMD(name, "Does thing "+name+".")
	}
	for i := range 50 {
		tr[fmt.Sprintf("home/prompts/t%02d.md", i)] = "---\ndescription: d\n---\nDo $1 with $@.\n"
	}
	tr.write(b, root)
	fsys := env.NewLocal(root)
	src := Sources{Home: filepath.Join(root, "home")}
	b.ResetTimer()
	for b.Loop() {
		res, err := Load(context.Background(), fsys, src)
		if err != nil || len(res.Skills) != 200 || len(res.Templates) != 50 {
			b.Fatalf("load: %v, %d skills, %d templates", err, len(res.Skills), len(res.Templates))
		}
	}
}

func BenchmarkBuildSystemPrompt(b *testing.B) {
	in := PromptInput{Mode: ModePlan, Tools: planTools, Cwd: "/work/proj", Date: goldenDate,
		ContextFiles: goldenContext, Skills: goldenSkills, AppendSystem: "x"}
	for b.Loop() {
		_ = BuildSystemPrompt(in)
	}
}

func BenchmarkExpandTemplate(b *testing.B) {
	r := Result{Templates: []Template{{Name: "component", Body: "Create a component named $1 with ${@:2} and ${4:-defaults}; all: $ARGUMENTS."}}}
	for b.Loop() {
		if _, err := ExpandInput(context.Background(), `/component Button "onClick handler" 'disabled support'`, r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
