package server

import (
	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/skills"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Conversions from the core's values into protocol's wire types. No other
// package's struct is marshalled onto the wire for these results: a field
// added to skills.Skill, say, reaches an editor only when it is added here
// and to protocol.

func toSkillsList(r skills.Result) protocol.SkillsListResult {
	out := protocol.SkillsListResult{Skills: make([]protocol.Skill, 0, len(r.Skills)), Diagnostics: make([]protocol.Diagnostic, 0, len(r.Diagnostics))}
	for _, s := range r.Skills {
		out.Skills = append(out.Skills, protocol.Skill{
			Name: s.Name, Description: s.Description, Path: s.Path, BaseDir: s.BaseDir, Source: s.Source,
			DisableModelInvocation: s.DisableModelInvocation, License: s.License, Compatibility: s.Compatibility,
			Metadata: s.Metadata, AllowedTools: s.AllowedTools,
		})
	}
	for _, d := range r.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, protocol.Diagnostic{Path: d.Path, Line: d.Line, Message: d.Message, Severity: d.Severity})
	}
	return out
}

func toTemplatesList(ts []skills.Template) protocol.TemplatesListResult {
	out := protocol.TemplatesListResult{Templates: make([]protocol.Template, 0, len(ts))}
	for _, t := range ts {
		out.Templates = append(out.Templates, protocol.Template{Name: t.Name, Description: t.Description, Path: t.Path, Source: t.Source, Body: t.Body, ArgumentHint: t.ArgumentHint})
	}
	return out
}

func toCommandsList(cs []skills.Command) protocol.CommandsListResult {
	out := protocol.CommandsListResult{Commands: make([]protocol.Command, 0, len(cs))}
	for _, c := range cs {
		out.Commands = append(out.Commands, protocol.Command{Name: c.Name, Description: c.Description, Kind: c.Kind, Source: c.Source, Path: c.Path, ArgumentHint: c.ArgumentHint})
	}
	return out
}

func toTasks(ts []tools.Task) []protocol.Task { return display.WireTasks(ts) }

func toSessions(list []session.Info) []protocol.SessionInfo {
	out := make([]protocol.SessionInfo, 0, len(list))
	for _, i := range list {
		out = append(out, protocol.SessionInfo{ID: i.ID, Path: i.Path, Cwd: i.Cwd, Name: i.Name, FirstMessage: i.FirstMessage, LastMessage: i.LastMessage,
			ParentSession: i.ParentSession, Created: i.Created, Modified: i.Modified, EntryCount: i.EntryCount})
	}
	return out
}

// toApprovalParams is ui/requestApproval's params: the whole request,
// preview included (the display's pending.approval keeps only its diff).
func toApprovalParams(req harness.ApprovalRequest) protocol.ApprovalParams {
	return display.WireApproval(req)
}

func toSessionState(st harness.State) protocol.SessionStateResult {
	return protocol.SessionStateResult{Phase: protocol.Phase(st.Phase), IsRunning: st.IsRunning, SessionID: st.SessionID, Path: st.Path, Cwd: st.Cwd,
		Name: st.Name, Model: st.Model, ThinkingLevel: string(st.ThinkingLevel), MessageCount: st.MessageCount, Mode: st.Mode, Yolo: st.Yolo,
		Sandbox:   protocol.SandboxState{Mode: st.Sandbox.Mode, Available: st.Sandbox.Available, Network: st.Sandbox.Network, Required: st.Sandbox.Required, Reason: st.Sandbox.Reason},
		Workspace: st.Workspace, Tokens: display.WireTokens(st.Tokens), ContextTokens: st.ContextTokens, ContextWindow: st.ContextWindow,
		AutoCompaction: st.AutoCompaction, Steering: st.Steering, FollowUp: st.FollowUp, Goal: display.WireGoal(st.Goal)}
}

func toBashResult(r harness.BashResult) protocol.BashResult {
	return protocol.BashResult{Output: r.Output, ExitCode: r.ExitCode, Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath}
}

func toNavigateResult(r harness.NavigateResult) protocol.NavigateResult {
	return protocol.NavigateResult{LeafID: r.LeafID, EditorText: r.EditorText, SummaryEntryID: r.SummaryEntryID}
}

func toCompactionResult(r harness.CompactionResult) protocol.CompactionResult {
	return protocol.CompactionResult{Summary: r.Summary, FirstKeptEntryID: r.FirstKeptEntryID, TokensBefore: r.TokensBefore}
}

func toPolicies(m map[string]harness.Policy) map[string]protocol.Policy {
	if m == nil {
		return nil
	}
	out := make(map[string]protocol.Policy, len(m))
	for k, v := range m {
		out[k] = protocol.Policy(v)
	}
	return out
}

func toPermissions(v harness.PermissionsView) protocol.PermissionsResult {
	g := protocol.Grants{Tools: v.Grants.Tools, Categories: v.Grants.Categories}
	if v.Grants.Paths != nil {
		g.Paths = make([]protocol.PathGrant, len(v.Grants.Paths))
		for i, p := range v.Grants.Paths {
			g.Paths[i] = protocol.PathGrant{Path: p.Path, Write: p.Write}
		}
	}
	return protocol.PermissionsResult{Yolo: v.Yolo, Tools: toPolicies(v.Tools), Categories: toPolicies(v.Categories), Grants: g}
}

// wrapResult converts a harness result and passes its error on.
func wrapResult[T, W any](conv func(T) W) func(T, error) (any, error) {
	return func(r T, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		return conv(r), nil
	}
}

// fromPermissionsSet is permissions/set's params as the harness's update.
func fromPermissionsSet(p protocol.PermissionsSetParams) harness.PermissionsUpdate {
	u := harness.PermissionsUpdate{Yolo: p.Yolo, ClearGrants: p.ClearGrants}
	policies := func(m map[string]string) map[string]harness.Policy {
		if m == nil {
			return nil
		}
		out := make(map[string]harness.Policy, len(m))
		for k, v := range m {
			out[k] = harness.Policy(v)
		}
		return out
	}
	u.Tools, u.Categories = policies(p.Tools), policies(p.Categories)
	return u
}
