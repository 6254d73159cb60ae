package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/mcp"
	"github.com/pi-lsp/pi-lsp/tools"
)

// EvMCPServer reports that an MCP server failed or was disabled (Name,
// Error): the display shows it; the run goes on without its tools.
const EvMCPServer EventType = "mcp_server"

// MCP is the harness's MCP manager (nil when none is configured).
func (h *Harness) MCP() *mcp.Manager { return h.cfg.MCP }

// startMCP starts the configured MCP servers at the first turn (and
// refreshes lists that changed at later ones), then reports servers that
// failed since the last look.
func (h *Harness) startMCP(ctx context.Context) {
	m := h.cfg.MCP
	if m == nil || m.Empty() {
		return
	}
	m.Start(ctx, h.approveMCPServer)
	h.reportMCP()
}

// reportMCP emits one mcp_server event per server that newly failed or
// was disabled.
func (h *Harness) reportMCP() {
	st, _ := h.cfg.MCP.List()
	h.mcpMu.Lock()
	if h.mcpReported == nil {
		h.mcpReported = map[string]string{}
	}
	var evs []Event
	for _, s := range st {
		msg := ""
		if s.State == mcp.StateFailed || s.State == mcp.StateDisabled {
			msg = fmt.Sprintf("MCP server %q %s: %s", s.Name, s.State, s.Error)
		}
		if h.mcpReported[s.Name] != msg {
			h.mcpReported[s.Name] = msg
			if msg != "" {
				evs = append(evs, Event{Type: EvMCPServer, Name: s.Name, Error: msg})
			}
		}
	}
	h.mcpMu.Unlock()
	for _, ev := range evs {
		h.emit(ev)
	}
}

// mcpTools are the tools of the ready MCP servers.
func (h *Harness) mcpTools() []tools.Tool {
	if h.cfg.MCP == nil {
		return nil
	}
	return h.cfg.MCP.Tools()
}

// approveMCPServer asks the user, once, whether a project .mcp.json server
// may start (category mcp, the command line or URL as the display text).
// Any answer the user gives is remembered; no client means no answer.
func (h *Harness) approveMCPServer(ctx context.Context, c mcp.ServerConfig, display string) (approved, remember bool, err error) {
	ui := h.getUI()
	if ui == nil {
		return false, false, errors.New("no client that can approve is connected")
	}
	args, _ := json.Marshal(map[string]any{"server": c.Name, "source": c.Source, "file": c.File, "type": c.Type, "target": display})
	req := ApprovalRequest{ToolCallID: "mcp-server:" + c.Name, ToolName: "mcp:" + c.Name, Category: string(tools.CategoryMCP),
		Args: json.RawMessage(h.redact.Redact(string(args))), Display: h.redact.Redact(fmt.Sprintf("Start the project's MCP server %q (%s): %s", c.Name, c.File, display))}
	if !json.Valid(req.Args) {
		req.Args = args
	}
	return h.askOnce(ctx, ui, req)
}

// askOnce asks a one-time approval (project MCP servers, project hooks).
func (h *Harness) askOnce(ctx context.Context, ui UI, req ApprovalRequest) (approved, remember bool, err error) {
	h.emit(Event{Type: EvApproval, ToolCallID: req.ToolCallID, ToolName: req.ToolName, Approval: &req})
	d, err := ui.RequestApproval(ctx, req)
	if err != nil {
		h.emit(Event{Type: EvApprovalDone, ToolCallID: req.ToolCallID, Decision: "decline"})
		if errors.Is(err, tools.ErrNoUI) {
			return false, false, errors.New("the connected client cannot approve")
		}
		return false, false, err
	}
	h.emit(Event{Type: EvApprovalDone, ToolCallID: req.ToolCallID, Decision: string(d)})
	return d.Allows(), true, nil
}

// RestartMCP restarts one MCP server (mcp/restart).
func (h *Harness) RestartMCP(ctx context.Context, name string) (mcp.Status, error) {
	if h.cfg.MCP == nil {
		return mcp.Status{}, fmt.Errorf("%w: no MCP server %q (none is configured)", ErrNotFound, name)
	}
	st, err := h.cfg.MCP.Restart(ctx, name, h.approveMCPServer)
	if errors.Is(err, mcp.ErrUnknownServer) {
		return st, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	h.reportMCP()
	return st, err
}

// Commands are the slash commands an editor can offer: templates, skills
// and the prompts of ready MCP servers (/mcp:server:prompt).
func (h *Harness) Commands(ctx context.Context) []Command {
	var out []Command
	for _, c := range h.Skills(ctx).Commands() {
		out = append(out, Command{Name: c.Name, Description: c.Description, Kind: c.Kind, Source: c.Source, Path: c.Path, ArgumentHint: c.ArgumentHint})
	}
	if h.cfg.MCP != nil {
		for _, c := range h.cfg.MCP.Commands() {
			out = append(out, Command{Name: c.Name, Description: c.Description, Kind: "mcp", Source: "mcp:" + c.Server, ArgumentHint: argHint(c.Arguments)})
		}
	}
	if out == nil {
		out = []Command{}
	}
	return out
}

func argHint(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return "<" + strings.Join(args, "> <") + ">"
}

// Command is one slash command (commands/list).
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Kind         string `json:"kind"` // template | skill | mcp
	Source       string `json:"source"`
	Path         string `json:"path"`
	ArgumentHint string `json:"argumentHint,omitempty"`
}

// expandMCPCommand expands /mcp:server:prompt (starting the servers first
// if no turn did yet).
func (h *Harness) expandMCPCommand(ctx context.Context, text string) (string, bool, error) {
	if h.cfg.MCP == nil || !strings.HasPrefix(text, "/mcp:") {
		return text, false, nil
	}
	h.startMCP(ctx)
	out, err := h.cfg.MCP.ExpandCommand(ctx, text)
	if errors.Is(err, mcp.ErrNotMCPCommand) {
		return text, false, nil
	}
	if err != nil {
		return "", true, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return out, true, nil
}

// resourceBlocks reads MCP resources named by URI ("uri" or
// "server:uri"... a bare URI is looked up in every server) for a prompt.
func (h *Harness) resourceBlocks(ctx context.Context, refs []ResourceRef) ([]llm.ContentBlock, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if h.cfg.MCP == nil {
		return nil, fmt.Errorf("%w: no MCP server is configured to read %s", ErrInvalid, refs[0].URI)
	}
	h.startMCP(ctx)
	var out []llm.ContentBlock
	for _, r := range refs {
		text, err := h.cfg.MCP.ReadResource(ctx, r.Server, r.URI)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		out = append(out, llm.TextBlock(fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", r.URI, text)))
	}
	return out, nil
}

// ResourceRef names an MCP resource to attach to a prompt.
type ResourceRef struct {
	Server string `json:"server,omitempty"` // "" = any server that has it
	URI    string `json:"uri"`
}

// mcpState is the harness's bookkeeping of reported MCP failures.
type mcpState struct {
	mcpMu       sync.Mutex
	mcpReported map[string]string
}
