package integration

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

func TestSkillAndTemplateReachTheModel(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "ok", Repeat: true}})
	skillDir := filepath.Join(e.workspace, ".pi", "skills", "pdf-tools")
	writeFile(t, filepath.Join(skillDir, "SKILL.md"), "---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\nRun scripts/extract.sh on the file.\n")
	writeFile(t, filepath.Join(e.workspace, ".pi", "prompts", "review.md"), "---\ndescription: Review a file\n---\nReview $1 focusing on ${2:-bugs}. All: $@\n")
	s := e.start(startOpt{})

	var cmds struct {
		Commands []struct {
			Name, Kind string
		} `json:"commands"`
	}
	s.call("commands/list", nil, &cmds)
	names := mustJSON(cmds.Commands)
	if !strings.Contains(names, `"skill:pdf-tools"`) || !strings.Contains(names, `"review"`) {
		t.Fatalf("commands: %s", names)
	}
	s.prompt("/skill:pdf-tools report.pdf")
	s.waitIdle()
	s.prompt(`/review main.go "error handling"`)
	s.waitIdle()
	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d", len(reqs))
	}
	lastUser := func(body []byte) string {
		var r struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" {
				return string(r.Messages[i].Content)
			}
		}
		return ""
	}
	skillMsg := lastUser(reqs[0])
	wantSkill := `<skill name=\"pdf-tools\" location=\"` + filepath.Join(skillDir, "SKILL.md")
	if !strings.Contains(skillMsg, wantSkill) || !strings.Contains(skillMsg, "Run scripts/extract.sh") || !strings.Contains(skillMsg, "report.pdf") {
		t.Fatalf("skill block not sent as expected:\n%s", skillMsg)
	}
	if got := lastUser(reqs[1]); !strings.Contains(got, `Review main.go focusing on error handling. All: main.go error handling`) {
		t.Fatalf("template not expanded:\n%s", got)
	}
	// The system prompt lists the skill for the model.
	if !strings.Contains(string(reqs[0]), "<available_skills>") || !strings.Contains(string(reqs[0]), "Extract text from PDF files.") {
		t.Fatal("system prompt lacks the skill")
	}
	var sk struct {
		Skills      []map[string]any `json:"skills"`
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	s.call("skills/list", nil, &sk)
	if len(sk.Skills) != 1 {
		t.Fatalf("skills/list: %+v", sk)
	}
}

func TestSkillChangesAreAnnounced(t *testing.T) {
	e := newEnv(t, nil)
	s := e.start(startOpt{})
	var cmds struct {
		Commands []struct{ Name, Kind string } `json:"commands"`
	}
	// Only the built-in commands (issue 22) before the skill appears.
	s.call("commands/list", nil, &cmds)
	if len(cmds.Commands) != 6 || cmds.Commands[5].Kind != "builtin" {
		t.Fatalf("commands before: %+v", cmds)
	}
	writeFile(t, filepath.Join(e.workspace, ".pi", "skills", "late", "SKILL.md"), "---\nname: late\ndescription: Added while running.\n---\nbody\n")
	s.waitFor("skills/changed", func() bool { return len(s.Notifications("skills/changed")) > 0 })
	s.call("commands/list", nil, &cmds)
	if len(cmds.Commands) != 7 || cmds.Commands[6].Name != "skill:late" {
		t.Fatalf("commands after the change: %+v", cmds)
	}
}
