package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/skills"
	"github.com/pi-lsp/pi-lsp/tools"
)

// sameJSON fails unless the wire type marshals exactly as the core type it
// was converted from: a field added to one and not the other (or to the
// conversion) is caught here.
func sameJSON(t *testing.T, what string, core, wire any) {
	t.Helper()
	a, _ := json.Marshal(core)
	b, _ := json.Marshal(wire)
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	if string(ja) != string(jb) {
		t.Errorf("%s: the conversion changed the JSON\ncore %s\nwire %s", what, ja, jb)
	}
}

func TestConversionsKeepEveryField(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sk := skills.Result{
		Skills:      []skills.Skill{{Name: "n", Description: "d", Path: "p", BaseDir: "b", Source: "user", DisableModelInvocation: true, License: "MIT", Compatibility: "c", Metadata: map[string]any{"k": "v"}, AllowedTools: []string{"read"}}},
		Diagnostics: []skills.Diagnostic{{Path: "p", Line: 3, Message: "m", Severity: "warning"}},
		Templates:   []skills.Template{{Name: "t", Description: "d", Path: "p", Source: "project", Body: "b", ArgumentHint: "h"}},
	}
	sameJSON(t, "skills", map[string]any{"skills": sk.Skills, "diagnostics": sk.Diagnostics}, toSkillsList(sk))
	sameJSON(t, "templates", map[string]any{"templates": sk.Templates}, toTemplatesList(sk.Templates))
	sameJSON(t, "commands", map[string]any{"commands": sk.Commands()}, toCommandsList(sk.Commands()))
	ts := []tools.Task{{ID: "1", Content: "c", Status: tools.TaskPending, ActiveForm: "a"}}
	sameJSON(t, "tasks", ts, toTasks(ts))
	list := []session.Info{{ID: "i", Path: "p", Cwd: "c", Name: "n", FirstMessage: "f", ParentSession: "ps", Created: now, Modified: now, EntryCount: 4}}
	sameJSON(t, "sessions", list, toSessions(list))
	req := harness.ApprovalRequest{ToolCallID: "c", ToolName: "write", Category: "edit", Args: json.RawMessage(`{"path":"x"}`), Display: "write x",
		Preview:          &tools.Preview{Path: "/w/x", Before: "a\n", After: "b\n", Diff: "-a\n+b\n", NewFile: true, Cut: true, CutReason: "large"},
		OutsideWorkspace: true, ResolvedPath: "/w/x", Access: "write",
		Subagent: &harness.SubagentRef{Agent: "general", ToolCallID: "g1", Session: "s", SessionID: "id", Fork: true}}
	sameJSON(t, "approval", req, toApprovalParams(req))
}
