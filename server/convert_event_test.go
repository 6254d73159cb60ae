package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/memory"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// TestEventConversionKeepsTheBytes: harness/event sends protocol.Event, and
// its bytes are those the harness's own type had (clients already parse
// them), for every member and every message role and block type.
func TestEventConversionKeepsTheBytes(t *testing.T) {
	code := 2
	blocks := []llm.ContentBlock{llm.TextBlock("a < b && c > d"), {Type: llm.BlockImage, Data: "aGk=", MimeType: "image/png"},
		{Type: llm.BlockThinking, Thinking: "hm", ThinkingSignature: "sig", Redacted: true}, {Type: llm.BlockToolCall, ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		{Type: llm.BlockToolCall, ID: "c2", Name: "read"}}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: blocks[:2], Timestamp: 1},
		{Role: llm.RoleUser, Timestamp: 1},
		{Role: llm.RoleAssistant, Content: blocks, API: "openai-completions", Provider: "p", Model: "m", StopReason: llm.StopToolUse, ErrorMessage: "e", Timestamp: 2,
			Usage: llm.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 10, Cost: llm.Cost{Input: 0.1, Output: 0.2, CacheRead: 0.3, CacheWrite: 0.4, Total: 1}}},
		{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "bash", Content: blocks[:1], Details: json.RawMessage(`{"x":1}`), IsError: true, Timestamp: 3},
		{Role: llm.RoleBashExecution, Command: "ls", Output: "a\n", ExitCode: &code, Cancelled: true, Truncated: true, FullOutputPath: "/tmp/o", ExcludeFromContext: true, Timestamp: 4},
		{Role: llm.RoleCustom, CustomType: "note", Content: blocks[:1], Display: true, Details: json.RawMessage(`[1]`), Timestamp: 5},
		{Role: llm.RoleBranchSummary, Summary: "s", FromID: "f", Timestamp: 6},
		{Role: llm.RoleCompactionSummary, Summary: "s", TokensBefore: 9, Timestamp: 7},
	}
	tok := &harness.Tokens{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, Total: 10, ContextTokens: 5, ContextWindow: 6, ReserveTokens: 7, KeepRecent: 8, Compactions: 9,
		Cost: llm.Cost{Total: 1.5}, TurnCost: llm.Cost{Input: 0.5}}
	ref := &harness.SubagentRef{Agent: "general", ToolCallID: "g1", Session: "s", SessionID: "id", Fork: true}
	child := harness.Event{Type: harness.EvMessageUpdate, Seq: 3, DeltaKind: "text", Delta: "x", ContentIndex: 1}
	evs := []harness.Event{
		{Type: harness.EvToolStart, Seq: 1, ToolCallID: "c", ToolName: "bash", Args: json.RawMessage(`{"command":"echo \"MY_TOKEN=x\""}`)},
		{Type: harness.EvToolEnd, Seq: 2, ToolCallID: "c", Output: "o", IsError: true, Diff: "d", Path: "p"},
		{Type: harness.EvQueueUpdate, Steering: []string{"s"}, FollowUp: []string{"f"}, Drafts: []string{"d"}},
		{Type: harness.EvPhase, Phase: harness.PhaseRetry, Error: "e", Attempt: 2, DelayMs: 300},
		{Type: harness.EvApproval, Approval: &harness.ApprovalRequest{ToolCallID: "c", ToolName: "write", Category: "edit", Args: json.RawMessage(`{}`), Display: "d",
			Preview: &tools.Preview{Path: "/a", Before: "b", After: "a", Diff: "-b\n+a\n"}, OutsideWorkspace: true, ResolvedPath: "/a", Access: "write", Subagent: ref}},
		{Type: harness.EvApprovalDone, ToolCallID: "c", Decision: "approve"},
		{Type: harness.EvQuestion, Question: &tools.Question{ID: "q", Question: "?", Options: []string{"a"}, SelectionMode: "multi"}},
		{Type: harness.EvPlan, Plan: &tools.Plan{ID: "p", Title: "t", Plan: "1."}},
		{Type: harness.EvTasks, Tasks: []tools.Task{{ID: "1", Content: "c", Status: "pending", ActiveForm: "a"}}},
		{Type: harness.EvMode, Mode: "plan", Yolo: true, Sandbox: "read-only", Notice: "n", Name: "x", Model: "p/m", Thinking: llm.ThinkingHigh, Tokens: tok},
		{Type: harness.EvCompactionEnd, Reason: "manual", Summary: "s", SessionID: "id"},
		{Type: harness.EvMemory, Memory: &memory.Status{Mode: "observational", ObservedMessages: 3, LastReflection: &memory.ReflectionInfo{TokensBefore: 1, Tokens: 2, Level: 1, At: 4}}},
		{Type: harness.EvSubagentEvent, ToolCallID: "g1", Subagent: ref, Child: &child},
	}
	for _, m := range msgs {
		evs = append(evs, harness.Event{Type: harness.EvMessageEnd, Message: &m})
	}
	for _, ev := range evs {
		core, err1 := json.Marshal(ev)
		wire, err2 := json.Marshal(toEvent(ev))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", ev.Type, err1, err2)
		}
		if string(core) != string(wire) {
			t.Errorf("%s: the conversion changed the bytes\ncore %s\nwire %s", ev.Type, core, wire)
		}
	}
}

// TestResultConversionsKeepTheBytes: the results that were the harness's own
// structs marshal, as protocol's, to the same bytes.
func TestResultConversionsKeepTheBytes(t *testing.T) {
	code := 1
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := harness.State{Phase: harness.PhaseTurn, IsRunning: true, SessionID: "s", Path: "p", Cwd: "c", Name: "n", Model: "m", ThinkingLevel: llm.ThinkingLow,
		MessageCount: 3, Mode: "build", Yolo: true, Sandbox: harness.SandboxState{Mode: "workspace-write", Available: true, Network: true, Required: true, Reason: "r"},
		Workspace: []string{"/w"}, Tokens: harness.Tokens{Input: 1, KeepRecent: 2, Cost: llm.Cost{Total: 0.5}}, ContextTokens: 4, ContextWindow: 5, AutoCompaction: true,
		Steering: []string{}, FollowUp: []string{"f"}}
	perms := harness.PermissionsView{Yolo: true, Permissions: harness.Permissions{Tools: map[string]harness.Policy{"bash": harness.PolicyDeny},
		Categories: map[string]harness.Policy{"read": harness.PolicyAllow}, Grants: harness.Grants{Tools: []string{"x"}, Paths: []harness.PathGrant{{Path: "/o", Write: true}}}}}
	info := session.Info{ID: "i", Path: "/s/a.jsonl", Cwd: "c", Name: "n", FirstMessage: "f", ParentSession: "ps", Created: now, Modified: now, EntryCount: 4}
	oldItem := struct {
		session.Info
		Title   string `json:"title"`
		Fork    bool   `json:"fork"`
		Empty   bool   `json:"empty"`
		Current bool   `json:"current"`
	}{info, "n", true, false, true}
	for _, c := range []struct {
		what       string
		core, wire any
	}{
		{"session/state", st, toSessionState(st)},
		{"agent/bash", harness.BashResult{Output: "o", ExitCode: &code, Cancelled: true, Truncated: true, FullOutputPath: "/f"}, toBashResult(harness.BashResult{Output: "o", ExitCode: &code, Cancelled: true, Truncated: true, FullOutputPath: "/f"})},
		{"session/navigate", harness.NavigateResult{LeafID: "l", EditorText: "e", SummaryEntryID: "s"}, toNavigateResult(harness.NavigateResult{LeafID: "l", EditorText: "e", SummaryEntryID: "s"})},
		{"compaction/run", harness.CompactionResult{Summary: "s", FirstKeptEntryID: "k", TokensBefore: 9}, toCompactionResult(harness.CompactionResult{Summary: "s", FirstKeptEntryID: "k", TokensBefore: 9})},
		{"permissions", perms, toPermissions(perms)},
		{"permissions (empty)", harness.PermissionsView{}, toPermissions(harness.PermissionsView{})},
		{"session/list item", oldItem, listItems([]session.Info{info}, true, "i")[0]},
	} {
		a, err1 := json.Marshal(c.core)
		b, err2 := json.Marshal(c.wire)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s: the conversion changed the bytes (%v %v)\ncore %s\nwire %s", c.what, err1, err2, a, b)
		}
	}
}
