package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// toolInfo is what the adapter knows of one tool call.
type toolInfo struct {
	name    string
	title   string
	kind    sdk.ToolKind
	path    string // absolute, for locations
	line    int    // 1-based, 0 = none
	running bool   // in_progress was sent
	// meta tags a subagent's call with its parent's tool call
	// ({"pi-lsp": {"parentToolCallId", "subagent"}}).
	meta map[string]any
}

// subagentMeta is the _meta of a call a subagent made.
func subagentMeta(ref *harness.SubagentRef) map[string]any {
	return map[string]any{"pi-lsp": map[string]any{"parentToolCallId": ref.ToolCallID, "subagent": ref.Agent}}
}

// childCallID keeps a child's call ids apart from the parent's.
func childCallID(ref *harness.SubagentRef, id string) string { return ref.ToolCallID + "/" + id }

// toolArgs are the argument fields the built-in tools share.
type toolArgs struct {
	Path     string `json:"path"`
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Command  string `json:"command"`
	Pattern  string `json:"pattern"`
	Content  string `json:"content"`
	Edits    []struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	} `json:"edits"`
	OldText  *string `json:"oldText"`
	NewText  *string `json:"newText"`
	Question string  `json:"question"`
	Title    string  `json:"title"`
	Task     string  `json:"task"`
	Agent    string  `json:"agent"`
}

func parseArgs(raw json.RawMessage) toolArgs {
	var a toolArgs
	_ = json.Unmarshal(raw, &a)
	if a.Path == "" {
		a.Path = a.FilePath
	}
	if a.OldText != nil && a.NewText != nil {
		a.Edits = append(a.Edits, struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		}{*a.OldText, *a.NewText})
	}
	return a
}

// toolKind maps a tool to the ACP kind editors draw it with.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read":
		return sdk.ToolKindRead
	case "edit", "write":
		return sdk.ToolKindEdit
	case "bash":
		return sdk.ToolKindExecute
	case "grep", "find", "ls":
		return sdk.ToolKindSearch
	case "ask_user":
		return sdk.ToolKindThink
	case "submit_plan":
		return sdk.ToolKindSwitchMode
	}
	return sdk.ToolKindOther
}

func absPath(p, cwd string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~") {
		return p
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// describeTool names a call: title, kind and the file it touches.
func describeTool(name string, raw json.RawMessage, cwd string) toolInfo {
	a := parseArgs(raw)
	t := toolInfo{name: name, kind: toolKind(name), title: name}
	switch name {
	case "read":
		t.path, t.title = absPath(a.Path, cwd), "Read "+a.Path
		if a.Offset > 0 {
			t.line = a.Offset
		}
	case "edit":
		t.path, t.title = absPath(a.Path, cwd), "Edit "+a.Path
	case "write":
		t.path, t.title = absPath(a.Path, cwd), "Write "+a.Path
	case "bash":
		t.title = firstLine(a.Command, 120)
		if t.title == "" {
			t.title = "bash"
		}
	case "grep", "find":
		t.title = name + " " + a.Pattern
		if a.Path != "" {
			t.path = absPath(a.Path, cwd)
			t.title += " in " + a.Path
		}
	case "ls":
		t.path, t.title = absPath(a.Path, cwd), "ls "+a.Path
		if a.Path == "" {
			t.path, t.title = cwd, "ls ."
		}
	case "ask_user":
		t.title = firstLine(a.Question, 120)
	case "submit_plan":
		t.title = "Plan: " + a.Title
	case "subagent":
		t.title = "Subagent " + a.Agent + ": " + firstLine(a.Task, 80)
	}
	return t
}

func (t *toolInfo) locations() []sdk.ToolCallLocation {
	if t.path == "" {
		return nil
	}
	l := sdk.ToolCallLocation{Path: t.path}
	if t.line > 0 {
		l.Line = sdk.Ptr(t.line)
	}
	return []sdk.ToolCallLocation{l}
}

func rawJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// start is the tool_call update of a call the model made.
func (t *toolInfo) start(id string, args json.RawMessage) sdk.SessionUpdate {
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(t.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)}
	if v := rawJSON(args); v != nil {
		opts = append(opts, sdk.WithStartRawInput(v))
	}
	if l := t.locations(); l != nil {
		opts = append(opts, sdk.WithStartLocations(l))
	}
	u := sdk.StartToolCall(sdk.ToolCallId(id), t.title, opts...)
	u.ToolCall.Meta = t.meta
	return u
}

// end is the final tool_call_update: status, output and, for a write, the
// diff of the whole file.
func (t *toolInfo) end(id, output string, isError bool, w *fileWrite) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if w != nil && !isError {
		content = append(content, diffContent(t.path, w.old, w.newText))
		if w.old != nil {
			if l := firstChange(*w.old, w.newText); l > 0 {
				t.line = l
			}
		}
	}
	if output != "" && (t.kind != sdk.ToolKindEdit || isError || w == nil) {
		content = append(content, sdk.ToolContent(sdk.TextBlock(tail(output))))
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
	if content != nil {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	if l := t.locations(); l != nil {
		opts = append(opts, sdk.WithUpdateLocations(l))
	}
	u := sdk.UpdateToolCall(sdk.ToolCallId(id), opts...)
	u.ToolCallUpdate.Meta = t.meta
	return u
}

func diffContent(path string, old *string, newText string) sdk.ToolCallContent {
	if old == nil {
		return sdk.ToolDiffContent(path, newText)
	}
	return sdk.ToolDiffContent(path, newText, *old)
}

// firstChange is the 1-based line of the first difference between a and b.
func firstChange(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	return strings.Count(a[:i], "\n") + 1
}

// previewContent is the diff an approval request shows for an edit or a
// write, from the call's arguments (the replacements, or the new content).
func previewContent(name string, raw json.RawMessage, cwd string) []sdk.ToolCallContent {
	a := parseArgs(raw)
	path := absPath(a.Path, cwd)
	switch name {
	case "edit":
		out := make([]sdk.ToolCallContent, 0, len(a.Edits))
		for _, e := range a.Edits {
			old := e.OldText
			out = append(out, diffContent(path, &old, e.NewText))
		}
		return out
	case "write":
		return []sdk.ToolCallContent{diffContent(path, nil, a.Content)}
	}
	return nil
}

// planUpdate maps the task list to plan entries.
func planUpdate(ts []tools.Task) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(ts))
	for _, t := range ts {
		st := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		// Tasks carry no priority of their own.
		pr := sdk.PlanEntryPriorityMedium
		content := t.Content
		if t.Status == "in_progress" && t.ActiveForm != "" {
			content = t.ActiveForm
		}
		entries = append(entries, sdk.PlanEntry{Content: content, Status: st, Priority: pr})
	}
	return sdk.UpdatePlan(entries...)
}

// planFromTools is planUpdate of the harness's live task list (events and
// the harness carry the same tools.Task).
func planFromTools(ts []tools.Task) sdk.SessionUpdate { return planUpdate(ts) }
