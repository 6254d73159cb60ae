package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/session"
	"github.com/pi-lsp/pi-lsp/tools"
)

// The editor-facing methods and server→client calls of issue 22:
// files/search, reviewable approvals and writes through fs/writeTextFile.

func (a *agent) registerEditor(s *rpc.Server) {
	s.Register("files/search", handle(a, func(ctx context.Context, h *harness.Harness, p protocol.FilesSearchParams) (any, error) {
		if p.Limit < 0 || p.Limit > 1000 {
			return nil, rpc.ErrInvalidParams(`"limit" must be between 0 and 1000`)
		}
		ms, truncated, err := h.SearchFiles(ctx, p.Query, p.Limit)
		if err != nil {
			return nil, err
		}
		out := protocol.FilesSearchResult{Files: make([]protocol.FileMatch, len(ms)), Truncated: truncated}
		for i, m := range ms {
			pos := m.Positions
			if pos == nil {
				pos = []int{}
			}
			out.Files[i] = protocol.FileMatch{Path: m.Path, Abs: m.Abs, Score: m.Score, Positions: pos}
		}
		return out, nil
	}))
}

// contextItems converts agent/prompt's context.
func contextItems(in []protocol.ContextItem) []harness.ContextItem {
	out := make([]harness.ContextItem, len(in))
	for i, c := range in {
		out[i] = harness.ContextItem{Type: c.Type, Path: c.Path, Text: c.Text, MimeType: c.MimeType, Data: c.Data}
		if c.Range != nil {
			out[i].StartLine, out[i].EndLine = c.Range.StartLine, c.Range.EndLine
		}
	}
	return out
}

// editorWriter sends writes to the client when it declared
// fs.writeTextFile; nil otherwise.
func editorWriter(c *rpc.Client) env.BufferWriter {
	if !c.Capabilities().FS.WriteTextFile {
		return nil
	}
	return func(ctx context.Context, path, text string) error {
		var resp json.RawMessage
		if err := c.Call(ctx, "fs/writeTextFile", protocol.WriteTextFileParams{Path: path, Content: text}, &resp); err != nil {
			c.Log(slog.LevelWarn, fmt.Sprintf("fs/writeTextFile %s failed (%v): writing the disk instead", path, err))
			return err
		}
		return nil
	}
}

var _ harness.ReviewUI = clientUI{}

// RequestReview asks ui/requestApproval and reads the whole answer:
// decision, content and feedback.
func (u clientUI) RequestReview(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalReply, error) {
	var resp protocol.ApprovalReply
	if err := u.call(ctx, "ui/requestApproval", toApprovalParams(req), &resp); err != nil {
		if ctx.Err() != nil {
			return harness.ApprovalReply{}, ctx.Err()
		}
		if isNoUI(err) {
			return harness.ApprovalReply{}, err
		}
		// A reply we cannot read declines the call.
		u.c.Log(slog.LevelWarn, fmt.Sprintf("ui/requestApproval: %v: the call is declined", err))
		return harness.ApprovalReply{Decision: harness.DecisionDecline}, nil
	}
	r := harness.ApprovalReply{Decision: harness.Decision(resp.Decision), Feedback: resp.Feedback}
	switch r.Decision {
	case harness.DecisionApprove, harness.DecisionDecline, harness.DecisionAlwaysAllowTool, harness.DecisionAlwaysAllowCategory, harness.DecisionAlwaysAllowPath:
	default:
		u.c.Log(slog.LevelWarn, fmt.Sprintf("ui/requestApproval: unknown decision %q: the call is declined", resp.Decision))
		r.Decision = harness.DecisionDecline
	}
	if len(resp.Content) > 0 && string(resp.Content) != "null" {
		var s string
		if err := json.Unmarshal(resp.Content, &s); err != nil {
			r.BadContent = "content must be a string holding the whole file"
		} else {
			r.Content = &s
		}
	}
	return r, nil
}

func isNoUI(err error) bool { return errors.Is(err, tools.ErrNoUI) }

// listItems titles the sessions and leaves the empty ones (no prompt, no
// name) out unless includeEmpty; the current session is always listed.
func listItems(list []session.Info, includeEmpty bool, current string) []protocol.SessionListItem {
	out := []protocol.SessionListItem{}
	for _, in := range list {
		it := protocol.SessionListItem{ID: in.ID, Path: in.Path, Cwd: in.Cwd, Name: in.Name, FirstMessage: in.FirstMessage, LastMessage: in.LastMessage, ParentSession: in.ParentSession,
			Created: in.Created, Modified: in.Modified, EntryCount: in.EntryCount,
			Title: session.Title(in.Name, in.FirstMessage), Fork: in.ParentSession != "" && !strings.Contains(filepath.ToSlash(in.Path), "/subagents/"), Current: in.ID == current}
		it.Empty = it.Title == ""
		if it.Empty && !includeEmpty && !it.Current {
			continue
		}
		out = append(out, it)
	}
	return out
}
