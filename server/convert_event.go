package server

import (
	"github.com/pi-lsp/pi-lsp/display"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// toEvent converts a harness event into harness/event's wire type.
func toEvent(ev harness.Event) protocol.Event {
	out := protocol.Event{
		Type: protocol.EventType(ev.Type), Seq: ev.Seq,
		DeltaKind: ev.DeltaKind, Delta: ev.Delta, ContentIndex: ev.ContentIndex,
		ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Args: ev.Args, Output: ev.Output, IsError: ev.IsError,
		Diff: ev.Diff, Path: ev.Path, Steering: ev.Steering, FollowUp: ev.FollowUp, Drafts: ev.Drafts,
		Phase: protocol.Phase(ev.Phase), Error: ev.Error, Attempt: ev.Attempt, DelayMs: ev.DelayMs, Decision: ev.Decision,
		Mode: ev.Mode, ModeName: ev.ModeName, ModeColor: ev.ModeColor, Yolo: ev.Yolo, Sandbox: ev.Sandbox, Notice: ev.Notice, Name: ev.Name, Model: ev.Model,
		Thinking: string(ev.Thinking), Reason: ev.Reason, Summary: ev.Summary, SessionID: ev.SessionID,
		Subagent: display.WireSubagent(ev.Subagent),
	}
	if ev.Session != nil {
		out.Session = &protocol.EventSession{SessionID: ev.Session.ID, Path: ev.Session.Path, Cwd: ev.Session.Cwd, Name: ev.Session.Name}
	}
	if ev.Message != nil {
		m := toMessage(*ev.Message)
		out.Message = &m
	}
	if ev.Approval != nil {
		a := toApprovalParams(*ev.Approval)
		out.Approval = &a
	}
	if ev.Question != nil {
		q := display.WireQuestion(*ev.Question)
		out.Question = &q
	}
	if ev.Plan != nil {
		p := display.WirePlan(*ev.Plan)
		out.Plan = &p
	}
	if ev.Tasks != nil {
		out.Tasks = toTasks(ev.Tasks)
	}
	if ev.Tokens != nil {
		t := display.WireTokens(*ev.Tokens)
		out.Tokens = &t
	}
	if ev.Memory != nil {
		m := display.WireMemory(*ev.Memory)
		out.Memory = &m
	}
	out.Goal = display.WireGoal(ev.Goal)
	if ev.Child != nil {
		c := toEvent(*ev.Child)
		out.Child = &c
	}
	if ev.Job != nil {
		j := display.WireJob(*ev.Job)
		out.Job = &j
	}
	return out
}

// toMessage converts a message into its wire shape (pi's AgentMessage).
func toMessage(m llm.Message) protocol.AgentMessage {
	out := protocol.AgentMessage{
		Role: string(m.Role), Timestamp: m.Timestamp,
		API: m.API, Provider: m.Provider, Model: m.Model, StopReason: string(m.StopReason), ErrorMessage: m.ErrorMessage,
		Usage: protocol.Usage{Input: m.Usage.Input, Output: m.Usage.Output, CacheRead: m.Usage.CacheRead, CacheWrite: m.Usage.CacheWrite,
			TotalTokens: m.Usage.TotalTokens, Cost: display.WireCost(m.Usage.Cost)},
		ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, Details: m.Details,
		Command: m.Command, Output: m.Output, ExitCode: m.ExitCode, Cancelled: m.Cancelled, Truncated: m.Truncated,
		FullOutputPath: m.FullOutputPath, ExcludeFromContext: m.ExcludeFromContext, CustomType: m.CustomType, Display: m.Display,
		Summary: m.Summary, FromID: m.FromID, TokensBefore: m.TokensBefore,
	}
	if m.Content != nil {
		out.Content = make([]protocol.ContentBlock, len(m.Content))
		for i, b := range m.Content {
			out.Content[i] = protocol.ContentBlock{Type: b.Type, Text: b.Text, Data: b.Data, MimeType: b.MimeType, Thinking: b.Thinking,
				ThinkingSignature: b.ThinkingSignature, Redacted: b.Redacted, ID: b.ID, Name: b.Name, Arguments: b.Arguments}
		}
	}
	return out
}
