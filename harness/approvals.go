package harness

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pi-lsp/pi-lsp/tools"
)

// Policy is a standing verdict for a tool or a category.
type Policy string

// Policies.
const (
	PolicyAllow Policy = "allow"
	PolicyAsk   Policy = "ask"
	PolicyDeny  Policy = "deny"
)

// Decision is the user's answer to an approval request.
type Decision string

// Decisions a client may send.
const (
	DecisionApprove             Decision = "approve"
	DecisionDecline             Decision = "decline"
	DecisionAlwaysAllowTool     Decision = "alwaysAllowTool"
	DecisionAlwaysAllowCategory Decision = "alwaysAllowCategory"
)

// Allows reports whether the decision lets the call run.
func (d Decision) Allows() bool {
	return d == DecisionApprove || d == DecisionAlwaysAllowTool || d == DecisionAlwaysAllowCategory || d == DecisionAlwaysAllowPath
}

// Grants are the session-level "always allow" answers.
type Grants struct {
	Tools      []string    `json:"tools"`
	Categories []string    `json:"categories"`
	Paths      []PathGrant `json:"paths,omitempty"` // outside the workspace
}

// Permissions are the standing policies and session grants. They are stored
// in the session as a pi-lsp/permissions custom entry.
type Permissions struct {
	Tools      map[string]Policy `json:"tools"`
	Categories map[string]Policy `json:"categories"`
	Grants     Grants            `json:"grants"`
}

// DefaultPermissions: read and other allowed, edit, execute and mcp asked.
func DefaultPermissions() Permissions {
	return Permissions{
		Tools: map[string]Policy{},
		Categories: map[string]Policy{
			"read": PolicyAllow, "edit": PolicyAsk, "execute": PolicyAsk, "mcp": PolicyAsk, "other": PolicyAllow,
		},
	}
}

func (p Permissions) normalized() Permissions {
	d := DefaultPermissions()
	if p.Tools == nil {
		p.Tools = d.Tools
	}
	if p.Categories == nil {
		p.Categories = d.Categories
	}
	for k, v := range d.Categories {
		if _, ok := p.Categories[k]; !ok {
			p.Categories[k] = v
		}
	}
	return p
}

func (p Permissions) clone() Permissions {
	out := Permissions{Tools: map[string]Policy{}, Categories: map[string]Policy{}}
	for k, v := range p.Tools {
		out.Tools[k] = v
	}
	for k, v := range p.Categories {
		out.Categories[k] = v
	}
	out.Grants.Tools = append([]string{}, p.Grants.Tools...)
	out.Grants.Categories = append([]string{}, p.Grants.Categories...)
	out.Grants.Paths = append([]PathGrant(nil), p.Grants.Paths...)
	return out
}

// Verdict is what the approval chain decides for one call.
type Verdict struct {
	Policy Policy
	Rule   string // which rule matched, for the result text and logs
}

// resolveApproval walks the chain; the first match wins:
// per-tool deny, YOLO, per-tool policy, session grant (tool, then category),
// category policy, ask.
func resolveApproval(p Permissions, yolo bool, tool string, category tools.Category) Verdict {
	if p.Tools[tool] == PolicyDeny {
		return Verdict{PolicyDeny, "tool policy: deny"}
	}
	if yolo {
		return Verdict{PolicyAllow, "yolo"}
	}
	if pol, ok := p.Tools[tool]; ok && pol != "" {
		return Verdict{pol, "tool policy: " + string(pol)}
	}
	if contains(p.Grants.Tools, tool) {
		return Verdict{PolicyAllow, "session grant: tool"}
	}
	if contains(p.Grants.Categories, string(category)) {
		return Verdict{PolicyAllow, "session grant: category"}
	}
	if pol, ok := p.Categories[string(category)]; ok && pol != "" {
		return Verdict{pol, "category policy: " + string(pol)}
	}
	return Verdict{PolicyAsk, "default"}
}

// PermissionsView is what permissions/get returns.
type PermissionsView struct {
	Yolo bool `json:"yolo"`
	Permissions
}

// Permissions returns the standing policies, grants and YOLO flag.
func (h *Harness) Permissions() PermissionsView {
	h.mu.Lock()
	defer h.mu.Unlock()
	return PermissionsView{Yolo: h.yolo, Permissions: h.perms.clone()}
}

// PermissionsUpdate changes policies; nil fields are left alone.
type PermissionsUpdate struct {
	Tools       map[string]Policy `json:"tools"`
	Categories  map[string]Policy `json:"categories"`
	Yolo        *bool             `json:"yolo"`
	ClearGrants bool              `json:"clearGrants"`
}

// SetPermissions applies an update and stores it in the session.
func (h *Harness) SetPermissions(ctx context.Context, u PermissionsUpdate) (PermissionsView, error) {
	for k, v := range u.Tools {
		if !validPolicy(v) && v != "" {
			return PermissionsView{}, fmt.Errorf("%w: tool %q policy %q (want allow|ask|deny, or \"\" to clear)", ErrInvalid, k, v)
		}
	}
	for k, v := range u.Categories {
		switch k {
		case "read", "edit", "execute", "mcp", "other":
		default:
			return PermissionsView{}, fmt.Errorf("%w: unknown category %q (want read|edit|execute|mcp|other)", ErrInvalid, k)
		}
		if !validPolicy(v) {
			return PermissionsView{}, fmt.Errorf("%w: category %q policy %q (want allow|ask|deny)", ErrInvalid, k, v)
		}
	}
	h.mu.Lock()
	p := h.perms.clone()
	for k, v := range u.Tools {
		if v == "" {
			delete(p.Tools, k)
		} else {
			p.Tools[k] = v
		}
	}
	for k, v := range u.Categories {
		p.Categories[k] = v
	}
	if u.ClearGrants {
		p.Grants = Grants{}
	}
	h.perms = p
	yoloChanged := u.Yolo != nil && *u.Yolo != h.yolo
	if u.Yolo != nil {
		h.yolo = *u.Yolo
	}
	h.mu.Unlock()
	h.persistPermissions(ctx)
	if yoloChanged {
		h.persistState(ctx)
		h.emitMode()
	}
	return h.Permissions(), nil
}

func validPolicy(p Policy) bool { return p == PolicyAllow || p == PolicyAsk || p == PolicyDeny }

func (h *Harness) persistPermissions(ctx context.Context) {
	s := h.currentSession()
	if s == nil {
		return
	}
	h.mu.Lock()
	p := h.perms.clone()
	h.mu.Unlock()
	if _, err := s.AppendCustom(ctx, customPermissions, p); err != nil {
		h.log.Warn("persist permissions", "err", err)
	}
}

func (h *Harness) grant(ctx context.Context, tool string, category tools.Category, d Decision) {
	h.mu.Lock()
	switch d {
	case DecisionAlwaysAllowTool:
		if !contains(h.perms.Grants.Tools, tool) {
			h.perms.Grants.Tools = append(h.perms.Grants.Tools, tool)
			sort.Strings(h.perms.Grants.Tools)
		}
	case DecisionAlwaysAllowCategory:
		if !contains(h.perms.Grants.Categories, string(category)) {
			h.perms.Grants.Categories = append(h.perms.Grants.Categories, string(category))
			sort.Strings(h.perms.Grants.Categories)
		}
	}
	h.mu.Unlock()
	h.persistPermissions(ctx)
}

// approve runs the approval chain for one call, asking the user when the
// verdict is ask. It returns nil when the call may run (with the content
// the user accepted, for a reviewed edit or write), or the refusal: the
// text the model gets instead, and the outcome the display shows.
func (h *Harness) approve(ctx context.Context, t tools.Tool, call tools.Call, display string) (*refusal, *tools.Reviewed) {
	if h.sa.up != nil {
		// A child's calls go through its parent's chain, tagged with the child.
		return h.sa.up.approveFor(ctx, t, call, display, h.sa.link)
	}
	return h.approveFor(ctx, t, call, display, nil)
}

// approveFor is approve for the agent's own call (sub nil) or a child's.
func (h *Harness) approveFor(ctx context.Context, t tools.Tool, call tools.Call, display string, sub *SubagentRef) (*refusal, *tools.Reviewed) {
	name, cat := call.Name, t.Category()
	h.mu.Lock()
	grants := append([]PathGrant(nil), h.perms.Grants.Paths...)
	h.mu.Unlock()
	out := h.judgeAccesses(t, call, grants)
	h.mu.Lock()
	var v Verdict
	if out != nil {
		// Outside the workspace: a deny still denies, anything else asks,
		// under YOLO too.
		if v = resolveApproval(h.perms, false, name, cat); v.Policy != PolicyDeny {
			v = Verdict{PolicyAsk, "outside the workspace"}
		}
	} else {
		v = resolveApproval(h.perms, h.yolo, name, cat)
	}
	h.mu.Unlock()
	switch v.Policy {
	case PolicyAllow:
		return nil, nil
	case PolicyDeny:
		return declined(fmt.Sprintf("Tool call denied by policy (%s). The %s tool is not allowed in this session; do not retry it, choose another way or ask the user.", v.Rule, name),
			"denied by policy ("+v.Rule+")"), nil
	}
	ui := h.getUI()
	if ui == nil {
		if out != nil {
			return outsideRefusal(name, out, noClient), nil
		}
		return declined(fmt.Sprintf("Tool call declined: %s needs the user's approval (%s category) and no client that can approve is connected. Do not retry it; explain what you wanted to do.", name, cat),
			noClient), nil
	}
	preview, failure := h.previewFor(ctx, call)
	if failure != "" {
		// The edit cannot apply (its oldText is not in the file): asking
		// the user to approve a change that would fail wastes their time,
		// so the call fails now with the tool's own reason.
		return failed(failure), nil
	}
	req := ApprovalRequest{ToolCallID: call.ID, ToolName: name, Category: string(cat), Args: call.Args, Display: display, Subagent: sub,
		Preview: preview}
	if out != nil {
		req.OutsideWorkspace, req.ResolvedPath, req.Access = true, out.resolved, accessWord(out.write)
		req.Display = fmt.Sprintf("OUTSIDE THE WORKSPACE: %s %s\n%s", accessWord(out.write), out.resolved, req.Display)
	}
	h.emit(Event{Type: EvApproval, ToolCallID: call.ID, ToolName: name, Approval: &req, Subagent: sub})
	reply, err := askApproval(ctx, ui, req)
	if err != nil {
		decision := "decline"
		if ctx.Err() != nil {
			decision = "aborted"
		}
		h.emit(Event{Type: EvApprovalDone, ToolCallID: call.ID, Decision: decision, Subagent: sub})
		if errors.Is(err, tools.ErrNoUI) {
			if out != nil {
				return outsideRefusal(name, out, cannotApprove), nil
			}
			return declined(fmt.Sprintf("Tool call declined: %s needs the user's approval (%s category) and the connected client cannot approve tool calls. Do not retry it; explain what you wanted to do.", name, cat),
				cannotApprove), nil
		}
		if ctx.Err() != nil {
			return &refusal{text: "Tool call cancelled: the run was aborted while waiting for approval.",
				outcome: OutcomeInterrupted, reason: string(endReasonOf(ctx))}, nil
		}
		return declined(fmt.Sprintf("Tool call declined: the approval request failed (%v).", err),
			fmt.Sprintf("the approval request failed (%v)", err)), nil
	}
	d := reply.Decision
	var rv *tools.Reviewed
	if d.Allows() {
		var bad *refusal
		if rv, bad = reviewed(call, req, reply); bad != nil {
			h.emit(Event{Type: EvApprovalDone, ToolCallID: call.ID, Decision: string(DecisionDecline), Subagent: sub})
			return bad, nil
		}
	}
	h.emit(Event{Type: EvApprovalDone, ToolCallID: call.ID, Decision: string(d), Subagent: sub})
	switch {
	case d == DecisionApprove:
		return nil, rv
	case d == DecisionAlwaysAllowPath:
		if out != nil {
			h.mu.Lock()
			h.grantPathLocked(out)
			h.mu.Unlock()
			h.persistPermissions(ctx)
		}
		return nil, rv
	case d.Allows():
		h.grant(ctx, name, cat, d)
		return nil, rv
	default:
		return declined(declineText(name, reply.Feedback), strings.TrimSpace(reply.Feedback)), nil
	}
}

func accessWord(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// Why an approval could not be asked.
const (
	noClient      = "no client that can approve is connected"
	cannotApprove = "the connected client cannot approve tool calls"
)

func outsideRefusal(name string, o *outsideAccess, why string) *refusal {
	return declined(fmt.Sprintf("Tool call declined: %s would %s %s, which is outside the workspace, and %s. Do not retry it; ask the user to add the directory as a root (--root DIR or permissions.roots in ~/.pi/agent/pi-lsp.json) if it is needed.", name, accessWord(o.write), o.resolved, why),
		fmt.Sprintf("%s %s is outside the workspace and %s", accessWord(o.write), o.resolved, why))
}
