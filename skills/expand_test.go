package skills

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

func TestExpandInput(t *testing.T) {
	root := t.TempDir()
	tree{
		"home/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: PDFs\ndisable-model-invocation: true\n---\n\n  Run ./scripts/x.sh.\n\n",
		"home/skills/nofm/SKILL.md":   "---\nname: nofm\ndescription: d\n---\n",
		"home/prompts/component.md":   "---\ndescription: c\n---\nCreate $1 with ${@:2}; mode ${3:-plain}.",
		"proj/.pi/prompts/skill:x.md": "never matched as a template",
	}.write(t, root)
	fsys := env.NewLocal(root)
	ctx := context.Background()
	res, err := Load(ctx, fsys, Sources{Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "proj")})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "home", "skills", "pdf")
	block := `<skill name="pdf" location="` + filepath.Join(dir, "SKILL.md") + `">` + "\nReferences are relative to " + dir + ".\n\nRun ./scripts/x.sh.\n</skill>"
	nofmDir := filepath.Join(root, "home", "skills", "nofm")
	tests := []struct{ in, want string }{
		{"/skill:pdf", block},
		{"/skill:pdf   ", block},
		{"/skill:pdf extract page 2", block + "\n\nextract page 2"},
		{"/skill:pdf\nplease extract\n", block + "\n\nplease extract"},
		{"/skill:nofm go", `<skill name="nofm" location="` + filepath.Join(nofmDir, "SKILL.md") + `">` + "\nReferences are relative to " + nofmDir + ".\n\n\n</skill>\n\ngo"},
		{"/skill:unknown x", "/skill:unknown x"},
		{"/skill:x", "/skill:x"},
		{`/component Button "click handler" fancy`, "Create Button with click handler fancy; mode fancy."},
		{"/component", "Create  with ; mode plain."},
		{"/component\tTab", "Create Tab with ; mode plain."},
		{"/unknown a b", "/unknown a b"},
		{"plain text /component", "plain text /component"},
		{" /component x", " /component x"},
		{"", ""},
		{"/", "/"},
	}
	for _, tc := range tests {
		got, err := ExpandInput(ctx, tc.in, res, fsys)
		if err != nil {
			t.Errorf("ExpandInput(%q): %v", tc.in, err)
		}
		if got != tc.want {
			t.Errorf("ExpandInput(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
		}
	}
}

func TestExpandInputUnreadableSkill(t *testing.T) {
	res := Result{Skills: []Skill{{Name: "gone", Path: "/nonexistent/gone/SKILL.md", BaseDir: "/nonexistent/gone"}}}
	got, err := ExpandInput(context.Background(), "/skill:gone now", res, env.NewLocal(t.TempDir()))
	if err == nil || env.CodeOf(err) != env.CodeNotFound {
		t.Fatalf("err = %v, want a not_found error", err)
	}
	if got != "/skill:gone now" {
		t.Errorf("text changed on error: %q", got)
	}
}
