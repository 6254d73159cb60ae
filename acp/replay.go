package acp

import (
	"context"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/llm"
)

// replay sends the current branch as session/update notifications: user
// and agent messages, thoughts, tool calls with their final status, output
// and diffs, user bash commands, then the plan, the mode and the usage.
// It runs on the worker.
func (s *sess) replay(ctx context.Context) {
	msgs := s.h.DisplayHistory(ctx)
	calls := map[string]*toolInfo{}
	args := map[string]json.RawMessage{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockText:
					s.send(sdk.UpdateUserMessageText(b.Text))
				case llm.BlockImage:
					s.send(sdk.UpdateUserMessage(sdk.ImageBlock(b.Data, b.MimeType)))
				}
			}
		case llm.RoleAssistant:
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockText:
					if b.Text != "" {
						s.send(sdk.UpdateAgentMessageText(b.Text))
					}
				case llm.BlockThinking:
					if b.Thinking != "" && !b.Redacted {
						s.send(sdk.UpdateAgentThoughtText(b.Thinking))
					}
				case llm.BlockToolCall:
					t := describeTool(b.Name, b.Arguments, s.cwd)
					calls[b.ID], args[b.ID] = &t, b.Arguments
					s.send(t.start(b.ID, b.Arguments))
				}
			}
		case llm.RoleToolResult:
			t := calls[m.ToolCallID]
			if t == nil {
				d := describeTool(m.ToolName, nil, s.cwd)
				t = &d
				s.send(t.start(m.ToolCallID, nil))
			}
			s.send(replayEnd(t, m.ToolCallID, m.Text(), m.IsError, previewContent(t.name, args[m.ToolCallID], s.cwd)))
		case llm.RoleBashExecution:
			id := "bash-" + itoa(m.Timestamp)
			t := toolInfo{name: "bash", kind: sdk.ToolKindExecute, title: firstLine(m.Command, 120)}
			s.send(t.start(id, nil))
			failed := m.Cancelled || (m.ExitCode != nil && *m.ExitCode != 0)
			s.send(replayEnd(&t, id, m.Output, failed, nil))
		case llm.RoleCompactionSummary, llm.RoleBranchSummary:
			if m.Summary != "" {
				s.send(sdk.UpdateAgentThoughtText(m.Summary))
			}
		}
	}
	if ts := s.h.Tasks(); len(ts) > 0 {
		s.send(planFromTools(ts))
	}
	s.lastMode = ""
	s.sendMode(s.h.ModeState().Mode)
	st := s.h.State(ctx)
	s.tokensNow = &st.Tokens
	s.usage = [2]int{}
	s.sendUsage()
}

// replayEnd is the final update of a recorded call: for edits the diff of
// the replacements (the whole file's before is not recorded).
func replayEnd(t *toolInfo, id, output string, isError bool, diffs []sdk.ToolCallContent) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if !isError {
		content = append(content, diffs...)
	}
	if output != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(tail(output))))
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
	if content != nil {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(id), opts...)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
