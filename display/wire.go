package display

import (
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Conversions of the harness's values into the display state's wire types.
// rpc uses them too (harness/event), so each core type has one conversion.

// WireTokens converts the harness's token accounting.
func WireTokens(t harness.Tokens) protocol.Tokens {
	return protocol.Tokens{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, Total: t.Total,
		ContextTokens: t.ContextTokens, ContextWindow: t.ContextWindow, ReserveTokens: t.ReserveTokens, KeepRecent: t.KeepRecent,
		Compactions: t.Compactions, Cost: WireCost(t.Cost), TurnCost: WireCost(t.TurnCost)}
}

// WireCost converts a cost.
func WireCost(c llm.Cost) protocol.Cost {
	return protocol.Cost{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, Total: c.Total}
}

// WireApproval converts an approval request, preview included.
func WireApproval(req harness.ApprovalRequest) protocol.ApprovalParams {
	p := protocol.ApprovalParams{ToolCallID: req.ToolCallID, ToolName: req.ToolName, Category: req.Category, Args: req.Args, Display: req.Display,
		ApprovalBoundary: protocol.ApprovalBoundary{OutsideWorkspace: req.OutsideWorkspace, ResolvedPath: req.ResolvedPath, Access: req.Access}}
	if pv := req.Preview; pv != nil {
		p.Preview = &protocol.Preview{Path: pv.Path, Before: pv.Before, After: pv.After, Diff: pv.Diff, NewFile: pv.NewFile, Cut: pv.Cut, CutReason: pv.CutReason}
	}
	if s := req.Subagent; s != nil {
		p.Subagent = WireSubagent(s)
	}
	return p
}

// WireSubagent converts a subagent reference.
func WireSubagent(s *harness.SubagentRef) *protocol.ApprovalSubagent {
	if s == nil {
		return nil
	}
	return &protocol.ApprovalSubagent{Agent: s.Agent, ToolCallID: s.ToolCallID, Session: s.Session, SessionID: s.SessionID, Fork: s.Fork}
}

// WireQuestion converts an ask_user question.
func WireQuestion(q tools.Question) protocol.QuestionParams {
	return protocol.QuestionParams{ID: q.ID, Question: q.Question, Options: q.Options, SelectionMode: q.SelectionMode}
}

// WirePlan converts a submitted plan.
func WirePlan(p tools.Plan) protocol.PlanParams {
	return protocol.PlanParams{ID: p.ID, Title: p.Title, Plan: p.Plan}
}

// WireTasks converts the task list; never nil.
func WireTasks(ts []tools.Task) []protocol.Task {
	out := make([]protocol.Task, 0, len(ts))
	for _, t := range ts {
		out = append(out, protocol.Task{ID: t.ID, Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm})
	}
	return out
}
