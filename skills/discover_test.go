package skills

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/env"
)

// wantDiag matches a diagnostic: the path ends with pathSuffix, the
// message contains msg, and line and severity are equal.
type wantDiag struct {
	pathSuffix, msg string
	line            int
	severity        string
}

func TestLoadSkills(t *testing.T) {
	long := strings.Repeat("x", 1025)
	tests := []struct {
		name  string
		files tree // under the temp root: home/ is ~/.pi/agent, proj/ is cwd
		extra []string
		want  []string // "name source" in load order
		diags []wantDiag
	}{
		{
			name: "locations and order",
			files: tree{
				"home/skills/alpha/SKILL.md":    skillMD("alpha", "A."),
				"home/skills/loose.md":          skillMD("loose", "Loose root file."),
				"proj/.pi/skills/beta/SKILL.md": skillMD("beta", "B."),
				"proj/.pi/skills/gamma.md":      "---\ndescription: no name, file stem used\n---\nbody\n",
			},
			want: []string{"alpha user", "loose user", "beta project", "gamma project"},
		},
		{
			name: "skill directory inside another: the walk stops at the outer SKILL.md",
			files: tree{
				"home/skills/outer/SKILL.md":          skillMD("outer", "Outer."),
				"home/skills/outer/inner/SKILL.md":    skillMD("inner", "Inner."),
				"home/skills/outer/inner/deeper/x.md": skillMD("x", "X."),
			},
			want: []string{"outer user"},
		},
		{
			name: "nested directories without SKILL.md; loose .md below the root is not a skill",
			files: tree{
				"home/skills/group/sub/leaf/SKILL.md": skillMD("leaf", "Leaf."),
				"home/skills/group/notes.md":          skillMD("notes", "Not a skill here."),
			},
			want: []string{"leaf user"},
		},
		{
			name: "dot entries and node_modules are skipped",
			files: tree{
				"home/skills/.hidden/SKILL.md":            skillMD("hidden", "H."),
				"home/skills/.dot.md":                     skillMD("dot", "D."),
				"home/skills/node_modules/pkg/SKILL.md":   skillMD("pkg", "P."),
				"home/skills/lib/node_modules/x/SKILL.md": skillMD("x", "X."),
				"home/skills/ok/SKILL.md":                 skillMD("ok", "OK."),
			},
			want: []string{"ok user"},
		},
		{
			name: "nested ignore files",
			files: tree{
				"home/skills/.gitignore":                  "# comment\nignored/\ntmp-*\n!tmp-keep\n",
				"home/skills/ignored/SKILL.md":            skillMD("ignored", "I."),
				"home/skills/tmp-a/SKILL.md":              skillMD("tmp-a", "T."),
				"home/skills/tmp-keep/SKILL.md":           skillMD("tmp-keep", "K."),
				"home/skills/private/SKILL.md":            skillMD("private", "Sibling of group, whose rules do not apply."),
				"home/skills/group/.ignore":               "private\n",
				"home/skills/group/private/SKILL.md":      skillMD("private", "P."),
				"home/skills/group/public/SKILL.md":       skillMD("public", "Pub."),
				"home/skills/group/deep/private/SKILL.md": skillMD("private", "Unanchored pattern matches deeper too."),
				"home/skills/group/deep/.fdignore":        "/x\n",
				"home/skills/group/deep/x/SKILL.md":       skillMD("x", "Anchored: ignored."),
				"home/skills/group/deep/y/x/SKILL.md":     skillMD("x", "Anchored pattern does not match deeper."),
				"home/skills/drafts.md":                   skillMD("drafts", "D."),
				"home/skills/.ignore":                     "drafts.md\n",
			},
			want: []string{"x user", "public user", "private user", "tmp-keep user"},
		},
		{
			name: "symlink loop and symlinked skill directories",
			files: tree{
				"home/skills/a/SKILL.md":       skillMD("a", "A."),
				"home/skills/group/b/SKILL.md": skillMD("b", "B."),
				"home/skills/group/loop":       "-> ..",
				"home/skills/link-a":           "-> a",
				"home/skills/self":             "-> self",
				"home/skills/dangling":         "-> nowhere",
			},
			want: []string{"a user", "b user"},
			diags: []wantDiag{
				{"home/skills/dangling", "broken symlink", 0, SeverityWarning},
				{"home/skills/self", "broken symlink", 0, SeverityWarning},
			},
		},
		{
			name: "invalid names are warnings and the skill still loads",
			files: tree{
				"home/skills/bad-name/SKILL.md":                        skillMD("Bad_Name", "Upper case and underscore."),
				"home/skills/-lead/SKILL.md":                           skillMD("-lead", "Leading hyphen."),
				"home/skills/dbl--hy/SKILL.md":                         skillMD("dbl--hy", "Double hyphen."),
				"home/skills/" + strings.Repeat("a", 65) + "/SKILL.md": skillMD(strings.Repeat("a", 65), "Too long."),
			},
			want: []string{"-lead user", strings.Repeat("a", 65) + " user", "Bad_Name user", "dbl--hy user"},
			diags: []wantDiag{
				{"-lead/SKILL.md", "must not start or end with a hyphen", 2, SeverityWarning},
				{strings.Repeat("a", 65) + "/SKILL.md", "name exceeds 64 characters (65)", 2, SeverityWarning},
				{"bad-name/SKILL.md", `name "Bad_Name" does not match parent directory "bad-name"`, 2, SeverityWarning},
				{"bad-name/SKILL.md", "invalid characters", 2, SeverityWarning},
				{"dbl--hy/SKILL.md", "consecutive hyphens", 2, SeverityWarning},
			},
		},
		{
			name: "missing description leaves the skill out, others load",
			files: tree{
				"home/skills/a/SKILL.md":    "---\nname: a\n---\nbody\n",
				"home/skills/b/SKILL.md":    "---\nname: b\ndescription: \"  \"\n---\nbody\n",
				"home/skills/c/SKILL.md":    "no frontmatter at all\n",
				"home/skills/d/SKILL.md":    "---\nname: d\ndescription: [1, 2]\n---\n",
				"home/skills/good/SKILL.md": skillMD("good", "Fine."),
			},
			want: []string{"good user"},
			diags: []wantDiag{
				{"a/SKILL.md", "description is required", 0, SeverityError},
				{"b/SKILL.md", "description is required", 3, SeverityError},
				{"c/SKILL.md", "description is required", 0, SeverityError},
				{"d/SKILL.md", "description must be a string", 3, SeverityError},
			},
		},
		{
			name: "broken YAML is reported with its file line",
			files: tree{
				"home/skills/a/SKILL.md":    "---\nname: a\n  bad: indent\ndescription: x\n---\nbody\n",
				"home/skills/b/SKILL.md":    "---\nname: b\ndescription: x\n\tkey: tab\n---\n",
				"home/skills/c/SKILL.md":    "---\nname: c\ndescription: never closed\n",
				"home/skills/d/SKILL.md":    "---\n- a list\n- not a mapping\n---\n",
				"home/skills/e/SKILL.md":    "---\nname: e\ndescription: [unclosed\nlicense: x\n---\n",
				"home/skills/good/SKILL.md": skillMD("good", "Fine."),
			},
			want: []string{"good user"},
			diags: []wantDiag{
				{"a/SKILL.md", "invalid YAML frontmatter: mapping values are not allowed", 3, SeverityError},
				{"e/SKILL.md", "invalid YAML frontmatter: did not find expected ',' or ']'", 3, SeverityError},
				{"b/SKILL.md", "invalid YAML frontmatter: found a tab character", 4, SeverityError},
				{"c/SKILL.md", "never closed", 1, SeverityError},
				{"d/SKILL.md", "not a mapping", 2, SeverityError},
			},
		},
		{
			name: "description length: 1024 is fine, 1025 warns",
			files: tree{
				"home/skills/ok/SKILL.md":   skillMD("ok", long[:1024]),
				"home/skills/long/SKILL.md": skillMD("long", long),
			},
			want:  []string{"long user", "ok user"},
			diags: []wantDiag{{"long/SKILL.md", "description exceeds 1024 characters (1025)", 3, SeverityWarning}},
		},
		{
			name: "duplicate names: first wins",
			files: tree{
				"home/skills/dup/SKILL.md":      skillMD("dup", "User's."),
				"proj/.pi/skills/dup/SKILL.md":  skillMD("dup", "Project's."),
				"proj/.pi/skills/dup2/SKILL.md": "---\nname: dup\ndescription: again\n---\n",
			},
			want: []string{"dup user"},
			diags: []wantDiag{
				{"proj/.pi/skills/dup/SKILL.md", `name "dup" collision: keeping`, 0, SeverityWarning},
				{"proj/.pi/skills/dup2/SKILL.md", `does not match parent directory "dup2"`, 2, SeverityWarning},
				{"proj/.pi/skills/dup2/SKILL.md", `name "dup" collision`, 0, SeverityWarning},
			},
		},
		{
			name: "extra paths: directory, file, relative, missing, not markdown, same file twice",
			files: tree{
				"home/skills/a/SKILL.md":  skillMD("a", "A."),
				"elsewhere/one/SKILL.md":  skillMD("one", "One."),
				"elsewhere/loose.md":      skillMD("loose", "Loose."),
				"single/two/SKILL.md":     skillMD("two", "Two."),
				"proj/rel/three/SKILL.md": skillMD("three", "Three."),
				"notes.txt":               "x",
				"alias/a":                 "-> ../home/skills/a",
			},
			extra: []string{"ROOT/elsewhere", "ROOT/single/two/SKILL.md", "rel", "ROOT/missing", "ROOT/notes.txt", "ROOT/alias/a/SKILL.md"},
			want:  []string{"a user", "loose path", "one path", "two path", "three path"},
			diags: []wantDiag{
				{"/missing", "skill path does not exist", 0, SeverityError},
				{"/notes.txt", "not a markdown file", 0, SeverityError},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.files.write(t, root)
			var extra []string
			for _, e := range tc.extra {
				extra = append(extra, strings.Replace(e, "ROOT", root, 1))
			}
			src := Sources{Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "proj"), Extra: extra}
			res, err := Load(context.Background(), env.NewLocal(root), src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Skills {
				got = append(got, s.Name+" "+s.Source)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("skills = %q, want %q", got, tc.want)
			}
			checkDiags(t, res.Diagnostics, tc.diags)
		})
	}
}

func checkDiags(t *testing.T, got []Diagnostic, want []wantDiag) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, d := range got {
			if !used[i] && strings.HasSuffix(filepath.ToSlash(d.Path), w.pathSuffix) && strings.Contains(d.Message, w.msg) &&
				d.Line == w.line && d.Severity == w.severity {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("missing diagnostic %+v", w)
		}
	}
	for i, d := range got {
		if !used[i] {
			t.Errorf("unexpected diagnostic %+v", d)
		}
	}
}

func TestLoadSkillFields(t *testing.T) {
	root := t.TempDir()
	tree{
		"home/skills/full/SKILL.md": `---
name: full
description: "Every field: <tags> & quotes"
disable-model-invocation: true
license: Apache-2.0
compatibility: Needs git and Go 1.26
metadata:
  author: someone
  version: 2
  tags: [a, b]
  1: numeric key
allowed-tools: Bash(git:*) Read
---
Body.
`,
		"home/skills/list/SKILL.md": "---\nname: list\ndescription: d\nallowed-tools:\n  - read\n  - bash\n---\n",
		"home/skills/wrong/SKILL.md": "---\nname: wrong\ndescription: d\ndisable-model-invocation: \"yes\"\nmetadata: [x]\nallowed-tools: {a: b}\ncompatibility: " +
			strings.Repeat("c", 501) + "\nname: again\n---\n",
	}.write(t, root)
	home := filepath.Join(root, "home")
	res, err := Load(context.Background(), env.NewLocal(root), Sources{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 3 {
		t.Fatalf("skills: %+v", res.Skills)
	}
	full := res.Skills[0]
	dir := filepath.Join(home, "skills", "full")
	want := Skill{
		Name: "full", Description: "Every field: <tags> & quotes", Path: filepath.Join(dir, "SKILL.md"), BaseDir: dir,
		Source: SourceUser, DisableModelInvocation: true, License: "Apache-2.0", Compatibility: "Needs git and Go 1.26",
		Metadata:     map[string]any{"author": "someone", "version": 2, "tags": []any{"a", "b"}, "1": "numeric key"},
		AllowedTools: []string{"Bash(git:*)", "Read"},
	}
	if !reflect.DeepEqual(full, want) {
		t.Errorf("full =\n%#v\nwant\n%#v", full, want)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
	if got := res.Skills[1].AllowedTools; !reflect.DeepEqual(got, []string{"read", "bash"}) {
		t.Errorf("list allowed-tools = %q", got)
	}
	wrong := res.Skills[2]
	if wrong.DisableModelInvocation || wrong.Metadata != nil || wrong.AllowedTools != nil {
		t.Errorf("wrong-typed fields should be dropped: %+v", wrong)
	}
	checkDiags(t, res.Diagnostics, []wantDiag{
		{"wrong/SKILL.md", "disable-model-invocation must be true or false", 4, SeverityWarning},
		{"wrong/SKILL.md", "metadata must be a mapping", 5, SeverityWarning},
		{"wrong/SKILL.md", "allowed-tools must be", 6, SeverityWarning},
		{"wrong/SKILL.md", "compatibility exceeds 500 characters (501)", 7, SeverityWarning},
		{"wrong/SKILL.md", `duplicate frontmatter key "name"`, 8, SeverityWarning},
	})
}

func TestLoadTemplates(t *testing.T) {
	root := t.TempDir()
	tree{
		"home/prompts/review.md":        "---\ndescription: Review staged changes\nargument-hint: \"<focus>\"\n---\n\nReview $1 carefully.\n",
		"home/prompts/plain.md":         "\n\n" + strings.Repeat("w", 70) + "\nsecond line\n",
		"home/prompts/sub/nested.md":    "not loaded: discovery is not recursive\n",
		"home/prompts/notes.txt":        "not markdown\n",
		"home/prompts/broken.md":        "---\ndescription: [oops\n---\nx\n",
		"home/prompts/link.md":          "-> plain.md",
		"proj/.pi/prompts/review.md":    "project review, loses to the user's\n",
		"proj/.pi/prompts/component.md": "Create a component named $1.",
	}.write(t, root)
	res, err := Load(context.Background(), env.NewLocal(root), Sources{Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "proj")})
	if err != nil {
		t.Fatal(err)
	}
	type tpl struct{ name, desc, source, body, hint string }
	var got []tpl
	for _, x := range res.Templates {
		got = append(got, tpl{x.Name, x.Description, x.Source, x.Body, x.ArgumentHint})
	}
	want := []tpl{
		{"link", strings.Repeat("w", 60) + "...", SourceUser, "\n\n" + strings.Repeat("w", 70) + "\nsecond line\n", ""},
		{"plain", strings.Repeat("w", 60) + "...", SourceUser, "\n\n" + strings.Repeat("w", 70) + "\nsecond line\n", ""},
		{"review", "Review staged changes", SourceUser, "Review $1 carefully.", "<focus>"},
		{"component", "Create a component named $1.", SourceProject, "Create a component named $1.", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("templates =\n%q\nwant\n%q", got, want)
	}
	checkDiags(t, res.Diagnostics, []wantDiag{
		{"home/prompts/broken.md", "invalid YAML frontmatter", 2, SeverityError},
		{"proj/.pi/prompts/review.md", `template "review" collision`, 0, SeverityWarning},
	})
}

func TestLoadCanceled(t *testing.T) {
	root := t.TempDir()
	tree{"home/skills/a/SKILL.md": skillMD("a", "A.")}.write(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, env.NewLocal(root), Sources{Home: filepath.Join(root, "home")}); err == nil {
		t.Fatal("Load with a canceled context succeeded")
	}
}

func TestWatchDirs(t *testing.T) {
	src := Sources{Home: "/h/.pi/agent", Cwd: "/p", Extra: []string{"rel/skill", "/abs/x.md", ""}}
	want := []string{"/h/.pi/agent/skills", "/h/.pi/agent/prompts", "/p/.pi/skills", "/p/.pi/prompts", "/p/rel/skill", "/abs/x.md"}
	if got := src.WatchDirs(); !reflect.DeepEqual(got, want) {
		t.Errorf("WatchDirs = %q, want %q", got, want)
	}
}

func TestCommands(t *testing.T) {
	r := Result{
		Skills:    []Skill{{Name: "pdf", Description: "PDFs", Source: SourceUser, Path: "/s/pdf/SKILL.md", DisableModelInvocation: true}},
		Templates: []Template{{Name: "review", Description: "Review", Source: SourceProject, Path: "/p/review.md", ArgumentHint: "<x>"}},
	}
	want := []Command{
		{Name: "review", Description: "Review", Kind: CommandTemplate, Source: SourceProject, Path: "/p/review.md", ArgumentHint: "<x>"},
		{Name: "skill:pdf", Description: "PDFs", Kind: CommandSkill, Source: SourceUser, Path: "/s/pdf/SKILL.md"},
	}
	if got := r.Commands(); !reflect.DeepEqual(got, want) {
		t.Errorf("Commands = %+v", got)
	}
}
