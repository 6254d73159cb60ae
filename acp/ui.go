package acp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Permission option ids.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// permissionUI is the harness's UI over session/request_permission.
type permissionUI struct{ s *sess }

var _ harness.UI = permissionUI{}

// ask sends a permission request after every update queued before it, so
// the client knows the tool call it names.
func (u permissionUI) ask(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	if err := u.s.do(ctx, u.s.flush); err != nil {
		return sdk.RequestPermissionResponse{}, err
	}
	req.SessionId = u.s.id
	return u.s.a.conn.RequestPermission(ctx, req)
}

// RequestApproval maps the chain's ask to allow_once, allow_always (the
// session grant "always allow this tool"), reject_once and reject_always (a
// per-tool deny, the first rule of the chain). A cancelled outcome declines
// and stops the turn.
func (u permissionUI) RequestApproval(ctx context.Context, req harness.ApprovalRequest) (harness.Decision, error) {
	t := describeTool(req.ToolName, req.Args, u.s.cwd)
	id := req.ToolCallID
	if req.Subagent != nil {
		id = childCallID(req.Subagent, id)
	}
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: sdk.Ptr(t.title), Kind: sdk.Ptr(t.kind),
		Status: sdk.Ptr(sdk.ToolCallStatusPending), RawInput: rawJSON(req.Args), Locations: t.locations()}
	if req.Subagent != nil {
		tc.Meta = subagentMeta(req.Subagent)
	}
	if c := previewContent(req.ToolName, req.Args, u.s.cwd); len(c) > 0 {
		tc.Content = c
	}
	resp, err := u.ask(ctx, sdk.RequestPermissionRequest{ToolCall: tc, Options: []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: fmt.Sprintf("Always allow %s", req.ToolName), Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: optRejectAlways, Name: fmt.Sprintf("Never allow %s", req.ToolName), Kind: sdk.PermissionOptionKindRejectAlways},
	}})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return harness.DecisionDecline, nil
	}
	if resp.Outcome.Selected == nil {
		// Cancelled: decline, and the turn stops.
		u.s.h.Abort()
		return harness.DecisionDecline, nil
	}
	switch resp.Outcome.Selected.OptionId {
	case optAllowOnce:
		return harness.DecisionApprove, nil
	case optAllowAlways:
		return harness.DecisionAlwaysAllowTool, nil
	case optRejectAlways:
		if _, err := u.s.h.SetPermissions(context.WithoutCancel(ctx), harness.PermissionsUpdate{Tools: map[string]harness.Policy{req.ToolName: harness.PolicyDeny}}); err != nil {
			u.s.a.log.Warn("storing reject_always", "tool", req.ToolName, "err", err)
		}
		return harness.DecisionDecline, nil
	}
	return harness.DecisionDecline, nil
}

// AskQuestion offers the question's options as permission options (plus a
// way to skip); a question without options falls back to plain text.
func (u permissionUI) AskQuestion(ctx context.Context, q tools.Question) (string, error) {
	if len(q.Options) == 0 {
		return "", tools.ErrNoUI
	}
	opts := make([]sdk.PermissionOption, 0, len(q.Options)+1)
	for i, o := range q.Options {
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(fmt.Sprintf("option-%d", i)), Name: o, Kind: sdk.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: "skip", Name: "Skip (answer in the chat)", Kind: sdk.PermissionOptionKindRejectOnce})
	id := u.s.callOf("ask_user", "question-"+q.ID)
	resp, err := u.ask(ctx, sdk.RequestPermissionRequest{Options: opts, ToolCall: sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(id), Title: sdk.Ptr(q.Question), Kind: sdk.Ptr(sdk.ToolKindThink),
		Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(q.Question))},
	}})
	if err != nil {
		return "", fmt.Errorf("session/request_permission: %w", err)
	}
	if resp.Outcome.Selected == nil {
		u.s.h.Abort()
		return "", errors.New("the user cancelled the question")
	}
	for i, o := range q.Options {
		if string(resp.Outcome.Selected.OptionId) == fmt.Sprintf("option-%d", i) {
			return o, nil
		}
	}
	return "", errors.New("the user skipped the question: ask it in the chat instead")
}

// ApprovePlan asks to approve or reject a submitted plan.
func (u permissionUI) ApprovePlan(ctx context.Context, p tools.Plan) (tools.PlanVerdict, error) {
	resp, err := u.ask(ctx, sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(u.s.callOf("submit_plan", "plan-"+p.ID)), Title: sdk.Ptr("Plan: " + p.Title), Kind: sdk.Ptr(sdk.ToolKindSwitchMode),
		Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(p.Plan))},
	}, Options: []sdk.PermissionOption{
		{OptionId: "approve", Name: "Approve the plan and build", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: "reject", Name: "Keep planning", Kind: sdk.PermissionOptionKindRejectOnce},
	}})
	if err != nil {
		return tools.PlanVerdict{}, fmt.Errorf("session/request_permission: %w", err)
	}
	if resp.Outcome.Selected == nil {
		u.s.h.Abort()
		return tools.PlanVerdict{}, errors.New("the user cancelled")
	}
	if resp.Outcome.Selected.OptionId == "approve" {
		return tools.PlanVerdict{Approved: true}, nil
	}
	return tools.PlanVerdict{Approved: false, Feedback: "The user wants to keep planning."}, nil
}

// fileWrite is what one write did to a file, for the tool call's diff.
type fileWrite struct {
	old     *string // nil: the file was new
	newText string
}

// fileLog remembers the last write per path until the tool's end takes it.
type fileLog struct {
	mu sync.Mutex
	m  map[string]fileWrite
}

func newFileLog() *fileLog { return &fileLog{m: map[string]fileWrite{}} }

func (l *fileLog) put(path string, w fileWrite) {
	l.mu.Lock()
	l.m[path] = w
	l.mu.Unlock()
}

func (l *fileLog) take(path string) *fileWrite {
	if path == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.m[path]
	if !ok {
		return nil
	}
	delete(l.m, path)
	return &w
}

// wrapEnv routes reads through fs/read_text_file (unsaved buffers) and
// writes through fs/write_text_file when the client declared them, and
// records every write's before and after for the tool call's diff.
func (s *sess) wrapEnv(base env.Env) env.Env {
	caps := s.a.clientCaps().Fs
	ed := &env.Editor{Env: base}
	if caps.ReadTextFile {
		ed.Read = func(ctx context.Context, path string) (string, bool, error) {
			resp, err := s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: s.id, Path: path})
			if err != nil {
				return "", false, err
			}
			return resp.Content, true, nil
		}
	}
	ed.Write = func(ctx context.Context, path, text string) error {
		w := fileWrite{newText: text}
		if old, err := ed.ReadFile(ctx, path); err == nil {
			o := string(old)
			w.old = &o
		}
		if caps.WriteTextFile {
			if _, err := s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: s.id, Path: path, Content: text}); err != nil {
				return fmt.Errorf("fs/write_text_file: %w", err)
			}
		} else if err := base.WriteFile(ctx, path, []byte(text)); err != nil {
			return err
		}
		s.files.put(path, w)
		return nil
	}
	return ed
}
