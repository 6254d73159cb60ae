package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-lsp/pi-lsp/env"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// BashResult is the outcome of a user-run command (agent/bash).
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// Bash runs a command for the user in the session cwd and records it as a
// bashExecution message (in context unless excludeFromContext). It needs
// the idle phase. ctx cancels it.
func (h *Harness) Bash(ctx context.Context, command string, excludeFromContext bool) (BashResult, error) {
	if strings.TrimSpace(command) == "" {
		return BashResult{}, fmt.Errorf("%w: empty command", ErrInvalid)
	}
	if err := h.owner.claim(PhaseIdle); err != nil {
		return BashResult{}, err
	}
	defer h.owner.release()
	// agent/abort stops a user command too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.mu.Lock()
	h.bashCancel = cancel
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.bashCancel = nil
		h.mu.Unlock()
	}()
	s, err := h.ensureSession(ctx)
	if err != nil {
		return BashResult{}, err
	}
	capture := tools.NewOutputCapture() // the bash tool's limits and temp file
	res, err := h.commandEnv().Exec(ctx, env.ExecRequest{Command: command}, capture.Write)
	text, truncated, fullPath := capture.Finish()
	h.trackSpill(fullPath)
	if err == nil && res.ExitCode != 0 && res.Sandboxed != "" && env.LooksDenied(text) {
		text += "\n\n" + env.SandboxRefusalHint(res.Sandboxed)
	}
	if env.CodeOf(err) == env.CodePermissionDenied {
		// Refused before it ran (sandbox.required without Landlock).
		return BashResult{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	r := BashResult{Truncated: truncated, FullOutputPath: fullPath}
	switch {
	case err == nil:
		code := res.ExitCode
		r.ExitCode = &code
	case env.CodeOf(err) == env.CodeAborted || env.CodeOf(err) == env.CodeTimeout || errors.Is(err, context.Canceled):
		r.Cancelled = true
	default:
		return BashResult{}, fmt.Errorf("bash: %w", err)
	}
	r.Output = text
	m := llm.Message{Role: llm.RoleBashExecution, Command: command, Output: text, ExitCode: r.ExitCode,
		Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath,
		ExcludeFromContext: excludeFromContext, Timestamp: h.now()}
	safe := h.displayCopy(m)
	h.emit(Event{Type: EvMessageStart, Message: &safe})
	if _, err := s.AppendMessage(context.Background(), m); err != nil {
		return r, fmt.Errorf("record bash: %w", err)
	}
	h.emit(Event{Type: EvMessageEnd, Message: &safe})
	h.noteShown(1)
	return r, nil
}
