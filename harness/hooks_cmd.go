package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/compaction"
	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/internal/textcut"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/tools"
)

// CommandHooks are the shell-command hooks of the settings files (the
// seed's plugins, in Claude Code's shape), installed on the harness hooks
// by New.
type CommandHooks struct {
	Hooks       []CommandHook
	Diagnostics []HookDiagnostic
	// Trust remembers the one-time approval of the project's hooks
	// (enabledProjectHooks in the user's settings).
	Trust *mcp.Trust
	// Wrap, if set, turns a hook's argv (sh -c command) into the argv that
	// runs it under the workspace sandbox.
	Wrap func(argv []string) []string
}

// maxHookOutput bounds what is kept of a hook's stdout and stderr.
const maxHookOutput = 64 << 10

// hookOutcome is how one command hook ended.
type hookOutcome struct {
	hook     CommandHook
	exit     int
	stdout   string
	stderr   string
	timedOut bool
	err      error
	decision *hookDecision // stdout parsed as JSON, when it is
}

// hookDecision is the JSON a hook may print on exit 0 (Claude Code's).
type hookDecision struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	Decision       string `json:"decision"` // "block" (or "approve", which changes nothing here)
	Reason         string `json:"reason"`
	SystemMessage  string `json:"systemMessage"`
	SpecificOutput struct {
		PermissionDecision       string  `json:"permissionDecision"` // deny blocks; allow and ask leave it to the approval chain
		PermissionDecisionReason string  `json:"permissionDecisionReason"`
		AdditionalContext        string  `json:"additionalContext"`
		UpdatedToolOutput        *string `json:"updatedToolOutput"`
		UpdatedMCPToolOutput     *string `json:"updatedMCPToolOutput"`
	} `json:"hookSpecificOutput"`
}

// blocks reports whether the outcome blocks, and why.
func (o hookOutcome) blocks() (bool, string) {
	if o.exit == 2 {
		r := strings.TrimSpace(o.stderr)
		if r == "" {
			r = "a " + o.hook.Event + " hook exited with status 2"
		}
		return true, r
	}
	if o.exit != 0 || o.decision == nil {
		return false, ""
	}
	d := o.decision
	switch {
	case d.Decision == "block":
		return true, firstNonEmpty(d.Reason, "blocked by a "+o.hook.Event+" hook")
	case d.SpecificOutput.PermissionDecision == "deny":
		return true, firstNonEmpty(d.SpecificOutput.PermissionDecisionReason, d.Reason, "denied by a "+o.hook.Event+" hook")
	case d.Continue != nil && !*d.Continue:
		return true, firstNonEmpty(d.StopReason, d.Reason, "stopped by a "+o.hook.Event+" hook")
	}
	return false, ""
}

// context is what the outcome adds for the model: stdout that is not JSON,
// or the JSON's additionalContext.
func (o hookOutcome) context() string {
	if o.exit != 0 {
		return ""
	}
	if o.decision != nil {
		return strings.TrimSpace(o.decision.SpecificOutput.AdditionalContext)
	}
	return strings.TrimSpace(o.stdout)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// installCommandHooks maps each event to its harness hook.
func (h *Harness) installCommandHooks(ch *CommandHooks) {
	for _, d := range ch.Diagnostics {
		h.log.Warn("hooks configuration", "problem", d.String())
	}
	by := map[string][]CommandHook{}
	for _, c := range ch.Hooks {
		by[c.Event] = append(by[c.Event], c)
	}
	if hs := by[HookPreToolUse]; len(hs) > 0 {
		h.OnToolCall(func(ctx context.Context, call tools.Call) ToolCallVerdict {
			for _, o := range h.runHooks(ctx, ch, hs, call.Name, map[string]any{"tool_name": call.Name, "tool_input": json.RawMessage(call.Args)}) {
				if block, reason := o.blocks(); block {
					return ToolCallVerdict{Block: true, Reason: reason}
				}
			}
			return ToolCallVerdict{}
		})
	}
	if hs := by[HookPostToolUse]; len(hs) > 0 {
		h.OnToolResult(func(ctx context.Context, call tools.Call, res tools.Result) ToolResultVerdict {
			resp := map[string]any{"content": res.Text(), "isError": res.IsError}
			outs := h.runHooks(ctx, ch, hs, call.Name, map[string]any{"tool_name": call.Name, "tool_input": json.RawMessage(call.Args), "tool_response": resp})
			changed := false
			var notes []string
			for _, o := range outs {
				if o.decision != nil && o.exit == 0 {
					if u := firstSet(o.decision.SpecificOutput.UpdatedToolOutput, o.decision.SpecificOutput.UpdatedMCPToolOutput); u != nil {
						res.Content = []llm.ContentBlock{llm.TextBlock(*u)}
						res.Display = ""
						changed = true
					}
				}
				if block, reason := o.blocks(); block {
					notes = append(notes, "PostToolUse hook: "+reason)
				} else if c := o.context(); c != "" {
					notes = append(notes, "PostToolUse hook: "+c)
				}
			}
			if len(notes) == 0 && !changed {
				return ToolResultVerdict{}
			}
			if len(notes) > 0 {
				res.Content = append(append([]llm.ContentBlock(nil), res.Content...), llm.TextBlock(strings.Join(notes, "\n")))
				res.Display = ""
			}
			res = tools.Finalize(res)
			return ToolResultVerdict{Result: &res}
		})
	}
	if hs := by[HookUserPromptSubmit]; len(hs) > 0 {
		h.OnBeforeAgentStart(func(ctx context.Context, st *AgentStart) {
			var prompt []string
			for _, m := range st.Prompt {
				prompt = append(prompt, m.Text())
			}
			for _, o := range h.runHooks(ctx, ch, hs, "", map[string]any{"prompt": strings.Join(prompt, "\n")}) {
				if block, reason := o.blocks(); block {
					st.Block = reason
					return
				}
				if c := o.context(); c != "" {
					st.Extra = append(st.Extra, llm.UserText("UserPromptSubmit hook context:\n"+c, h.now()))
				}
			}
		})
	}
	if hs := by[HookSessionStart]; len(hs) > 0 {
		h.OnSessionStart(func(ctx context.Context, st *SessionStart) {
			for _, o := range h.runHooks(ctx, ch, hs, "", map[string]any{"source": st.Source}) {
				if c := o.context(); c != "" {
					st.Extra = append(st.Extra, llm.UserText("SessionStart hook context:\n"+c, h.now()))
				}
			}
		})
	}
	if hs := by[HookStop]; len(hs) > 0 {
		h.OnAgentEnd(func(ctx context.Context, stopReason string, continued bool) AgentEndVerdict {
			in := map[string]any{"stop_hook_active": continued, "stop_reason": stopReason, "goal_active": false}
			if g := h.CurrentGoal(); g != nil && g.Status == GoalActive {
				in["goal_active"], in["goal"] = true, g
			}
			for _, o := range h.runHooks(ctx, ch, hs, "", in) {
				if block, reason := o.blocks(); block {
					return AgentEndVerdict{Continue: true, Reason: "Stop hook: " + reason}
				}
			}
			return AgentEndVerdict{}
		})
	}
	if hs := by[HookPreCompact]; len(hs) > 0 {
		h.OnBeforeCompact(func(ctx context.Context, _ *compaction.Preparation) CompactVerdict {
			trigger := "auto"
			if CompactReason(ctx) == "manual" {
				trigger = "manual"
			}
			for _, o := range h.runHooks(ctx, ch, hs, "", map[string]any{"trigger": trigger}) {
				if block, _ := o.blocks(); block {
					return CompactVerdict{Cancel: true}
				}
			}
			return CompactVerdict{}
		})
	}
}

func firstSet(ps ...*string) *string {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

// runHooks runs the hooks of one event that match tool ("" = no tool), in
// order, each with the event as JSON on stdin. Project hooks run only once
// the user approved them.
func (h *Harness) runHooks(ctx context.Context, ch *CommandHooks, hs []CommandHook, tool string, fields map[string]any) []hookOutcome {
	var out []hookOutcome
	for _, c := range hs {
		if tool != "" && !c.Matches(tool) {
			continue
		}
		if c.Source == "project" && !h.projectHooksApproved(ctx, ch) {
			continue
		}
		info := h.SessionInfo()
		in := map[string]any{"session_id": info.ID, "transcript_path": info.Path, "cwd": h.Cwd(), "hook_event_name": c.Event}
		for k, v := range fields {
			in[k] = v
		}
		o := h.runHook(ctx, ch, c, in)
		switch {
		case o.err != nil:
			h.log.Warn("hook failed", "event", c.Event, "command", c.Command, "err", o.err)
		case o.timedOut:
			h.log.Warn("hook timed out", "event", c.Event, "command", c.Command, "timeout", c.Timeout)
		case o.exit != 0 && o.exit != 2:
			h.log.Warn("hook exited with an error", "event", c.Event, "command", c.Command, "status", o.exit, "stderr", textcut.Head(strings.TrimSpace(o.stderr), 300))
		}
		out = append(out, o)
		if block, _ := o.blocks(); block {
			break
		}
	}
	return out
}

// commandSandboxer is an Env that can put a command the harness starts
// itself under a sandbox policy (env.Local, and env.Editor over it).
type commandSandboxer interface {
	SandboxCommand(p env.SandboxPolicy, argv []string) ([]string, error)
}

// sandboxHook puts a hook's argv under the sandbox bash runs under now
// (workspace-write in Build, read-only in Plan), or refuses it where
// sandbox.required is set and Landlock is missing.
func (h *Harness) sandboxHook(argv []string) ([]string, error) {
	p, err := h.sandboxPolicy()
	if err != nil || p == nil {
		return argv, err
	}
	s, ok := h.cfg.Env.(commandSandboxer)
	if !ok {
		return argv, nil
	}
	return s.SandboxCommand(*p, argv)
}

// runHook runs one command in the workspace with sh -c, under the sandbox.
func (h *Harness) runHook(ctx context.Context, ch *CommandHooks, c CommandHook, input map[string]any) hookOutcome {
	o := hookOutcome{hook: c, exit: -1}
	stdin, err := json.Marshal(input)
	if err != nil {
		o.err = err
		return o
	}
	cctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	argv := []string{"sh", "-c", c.Command}
	if ch.Wrap != nil {
		argv = ch.Wrap(argv)
	} else if argv, err = h.sandboxHook(argv); err != nil {
		o.err = err
		return o
	}
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Dir = h.Cwd()
	cmd.Env = append(os.Environ(), "PI_LSP_PROJECT_DIR="+h.Cwd(), "CLAUDE_PROJECT_DIR="+h.Cwd())
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	err = cmd.Run()
	o.stdout, o.stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		o.timedOut = true
	case err == nil:
		o.exit = 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		o.exit = exit.ExitCode()
	default:
		o.err = err
	}
	if o.exit == 0 {
		if s := strings.TrimSpace(o.stdout); strings.HasPrefix(s, "{") {
			var d hookDecision
			if json.Unmarshal([]byte(s), &d) == nil {
				o.decision = &d
			}
		}
	}
	return o
}

// projectHooksApproved asks once whether the project's hooks may run (all
// of them, listed in the request), and remembers the answer in the user's
// settings keyed by the project and a hash of the commands.
func (h *Harness) projectHooksApproved(ctx context.Context, ch *CommandHooks) bool {
	h.hookMu.Lock()
	defer h.hookMu.Unlock()
	if h.hookVerdict != nil {
		return *h.hookVerdict
	}
	var cmds []string
	sum := sha256.New()
	for _, c := range ch.Hooks {
		if c.Source == "project" {
			line := fmt.Sprintf("%s [%s] %s", c.Event, c.Matcher, c.Command)
			cmds = append(cmds, line)
			fmt.Fprintf(sum, "%s\x00", line)
		}
	}
	key := h.Cwd() + "#hooks#" + hex.EncodeToString(sum.Sum(nil))[:16]
	set := func(v bool) bool { h.hookVerdict = &v; return v }
	ok, known, err := ch.Trust.Verdict(mcp.KeyEnabledHooks, mcp.KeyDisabledHooks, key)
	if err != nil {
		h.log.Warn("hook approvals", "err", err)
	}
	if known {
		return set(ok)
	}
	ui := h.getUI()
	if ui == nil {
		h.log.Warn("project hooks not run: they need a one-time approval and no client can approve", "key", key)
		return false // asked again when a client is there
	}
	args, _ := json.Marshal(map[string]any{"hooks": cmds, "approvalKey": key})
	req := ApprovalRequest{ToolCallID: "project-hooks", ToolName: "hooks", Category: string(tools.CategoryExecute), Args: args,
		Display: "Run the project's hooks (.pi/pi-lsp.json):\n" + strings.Join(cmds, "\n")}
	approved, remember, err := h.askOnce(ctx, ui, req)
	if err != nil {
		h.log.Warn("project hooks not approved", "err", err)
		return false
	}
	if remember {
		if err := ch.Trust.Remember(mcp.KeyEnabledHooks, mcp.KeyDisabledHooks, key, approved); err != nil {
			h.log.Warn("hook approvals", "err", err)
		}
	}
	return set(approved)
}

// hookState is the harness's memory of the project hooks' approval.
type hookState struct {
	hookMu      sync.Mutex
	hookVerdict *bool
}

// capped is a bytes.Buffer that keeps at most maxHookOutput bytes.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxHookOutput - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// HookDiagnostics are the problems found in the hooks settings.
func (h *Harness) HookDiagnostics() []HookDiagnostic {
	if h.cfg.CommandHooks == nil {
		return nil
	}
	return h.cfg.CommandHooks.Diagnostics
}
