package harness

import (
	"context"
	"fmt"
	"sync"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/session"
)

// SandboxState is the sandbox of shell commands as session/state reports
// it. Mode is the mode commands run under now: workspace-write, read-only,
// off, or unavailable (the kernel has no Landlock and sandbox.required is
// not set: commands run unsandboxed).
type SandboxState struct {
	Mode      string `json:"mode"`
	Available bool   `json:"available"`
	Network   bool   `json:"network"`
	Required  bool   `json:"required"`
	Reason    string `json:"reason,omitempty"` // why Landlock is not available
}

// sandboxProbe checks Landlock once per harness.
type sandboxProbe struct {
	once      sync.Once
	ok        bool
	why       string
	warnOnce  sync.Once
	available func() (bool, string)
}

func (p *sandboxProbe) check() (bool, string) {
	p.once.Do(func() {
		f := p.available
		if f == nil {
			f = env.SandboxAvailable
		}
		p.ok, p.why = f()
	})
	return p.ok, p.why
}

// configuredSandbox is the mode for the current agent mode before
// availability: read-only agent modes run commands read-only unless the
// sandbox is off.
func (h *Harness) configuredSandbox() env.SandboxMode {
	m := h.cfg.Sandbox.Mode
	if m == "" || m == env.SandboxOff {
		return env.SandboxOff
	}
	h.mu.Lock()
	mode := h.modeByID(h.mode)
	h.mu.Unlock()
	if mode != nil && mode.ReadOnly {
		return env.SandboxReadOnly
	}
	return m
}

// SandboxState reports the sandbox commands run under now.
func (h *Harness) SandboxState() SandboxState {
	m := h.configuredSandbox()
	st := SandboxState{Mode: string(m), Network: !h.cfg.Sandbox.NoNetwork, Required: h.cfg.Sandbox.Required}
	if m == env.SandboxOff {
		return st
	}
	st.Available, st.Reason = h.sandbox.check()
	if !st.Available && !st.Required {
		st.Mode = "unavailable"
	}
	return st
}

// sandboxPolicy is the policy of the next command: nil to run it
// unsandboxed. Where Landlock is missing it warns once and runs unsandboxed,
// or, with sandbox.required, returns an error instead.
func (h *Harness) sandboxPolicy() (*env.SandboxPolicy, error) {
	m := h.configuredSandbox()
	if m == env.SandboxOff {
		return nil, nil
	}
	if ok, why := h.sandbox.check(); !ok {
		if h.cfg.Sandbox.Required {
			return nil, fmt.Errorf("the command was not run: sandbox.required is set and commands cannot be sandboxed here: %s. Ask the user to run it, or to change sandbox.required in ~/.pi/agent/pi-lsp.json", why)
		}
		h.sandbox.warnOnce.Do(func() {
			h.notice(fmt.Sprintf("Commands run without a sandbox: %s. Set sandbox.required to true in ~/.pi/agent/pi-lsp.json to refuse them instead.", why))
		})
		return nil, nil
	}
	p := &env.SandboxPolicy{Mode: m, NoNetwork: h.cfg.Sandbox.NoNetwork}
	if m == env.SandboxWorkspaceWrite {
		p.Writable = append(p.Writable, h.ws.Roots()...)
		p.Writable = append(p.Writable, env.TempDirs()...)
		w := h.cfg.Sandbox.Writable
		if w == nil {
			w = env.DefaultWritable()
		}
		p.Writable = append(p.Writable, w...)
	}
	return p, nil
}

// sandboxedEnv puts every command of a tool call under one sandbox policy.
type sandboxedEnv struct {
	env.Env
	policy *env.SandboxPolicy
	refuse error
}

func (s sandboxedEnv) Exec(ctx context.Context, req env.ExecRequest, onOutput func([]byte)) (env.ExecResult, error) {
	if s.refuse != nil {
		return env.ExecResult{ExitCode: -1}, &env.Error{Code: env.CodePermissionDenied, Op: "sandbox", Err: s.refuse}
	}
	if req.Sandbox == nil {
		req.Sandbox = s.policy
	}
	return s.Env.Exec(ctx, req, onOutput)
}

// commandEnv is the env a command runs in: the harness env with the
// current sandbox policy.
func (h *Harness) commandEnv() env.Env {
	p, err := h.sandboxPolicy()
	return sandboxedEnv{Env: h.cfg.Env, policy: p, refuse: err}
}

// notice tells the user something once: a notice event (the display shows
// it; the wire layer also logs it with window/logMessage) and the log.
func (h *Harness) notice(text string) {
	h.log.Warn(text)
	h.mu.Lock()
	h.notices = append(h.notices, text)
	h.mu.Unlock()
	h.emit(Event{Type: EvNotice, Notice: text})
}

// Notice tells the user something once, as the harness's own notices do:
// an EvNotice to every subscriber, kept in Notices for later clients.
func (h *Harness) Notice(text string) { h.notice(text) }

// Notices are the notices given since the harness started, oldest first (a
// client that attached after they were emitted shows them from here).
func (h *Harness) Notices() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.notices...)
}

// sessionNotice queues a notice about the session being opened: it is given
// right after the session_change event, so that a display reset by that
// event still shows it.
func (h *Harness) sessionNotice(text string) {
	h.mu.Lock()
	h.pendingNotices = append(h.pendingNotices, text)
	h.mu.Unlock()
}

// flushSessionNotices gives the queued notices and the warnings the session
// recorded while loading (skipped or repaired lines), each once.
func (h *Harness) flushSessionNotices(s *session.Session) {
	h.mu.Lock()
	pending := h.pendingNotices
	h.pendingNotices = nil
	h.mu.Unlock()
	h.mu.Lock()
	h.warnReported = 0
	h.mu.Unlock()
	h.reportSessionWarnings(s)
	for _, n := range pending {
		h.notice(n)
	}
}

// reportSessionWarnings gives, as notices, the warnings the session recorded
// since the last report: lines skipped or repaired on load, entries left out
// when they were first decoded.
func (h *Harness) reportSessionWarnings(s *session.Session) {
	ws := s.Warnings()
	h.mu.Lock()
	if h.sessions.cur != s || len(ws) <= h.warnReported {
		h.mu.Unlock()
		return
	}
	fresh := ws[h.warnReported:]
	h.warnReported = len(ws)
	h.mu.Unlock()
	for _, w := range fresh {
		h.notice("Session " + s.Path() + ": " + w)
	}
}
