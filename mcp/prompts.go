package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptCommand is the slash command (without the slash) of a server's
// prompt: mcp:server:prompt.
func PromptCommand(server, prompt string) string { return "mcp:" + server + ":" + prompt }

// Command is one MCP prompt offered as a slash command.
type Command struct {
	Name        string   `json:"name"` // mcp:server:prompt
	Description string   `json:"description"`
	Server      string   `json:"server"`
	Arguments   []string `json:"arguments,omitempty"`
}

// Commands lists the prompts of every ready server as slash commands.
func (m *Manager) Commands() []Command {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var out []Command
	for _, s := range servers {
		s.mu.Lock()
		if s.state == StateReady {
			for _, p := range s.prompts {
				c := Command{Name: PromptCommand(s.cfg.Name, p.Name), Description: p.Description, Server: s.cfg.Name}
				for _, a := range p.Arguments {
					c.Arguments = append(c.Arguments, a.Name)
				}
				out = append(out, c)
			}
		}
		s.mu.Unlock()
	}
	return out
}

// ErrNotMCPCommand is returned by ExpandCommand for input that is not an
// /mcp:server:prompt command.
var ErrNotMCPCommand = errors.New("not an MCP prompt command")

// ExpandCommand expands "/mcp:server:prompt args…" into the prompt's text
// (its messages joined). Positional args fill the prompt's arguments in
// order; name=value sets one by name.
func (m *Manager) ExpandCommand(ctx context.Context, input string) (string, error) {
	rest, ok := strings.CutPrefix(input, "/mcp:")
	if !ok {
		return "", ErrNotMCPCommand
	}
	head, argText, _ := strings.Cut(rest, " ")
	serverName, promptName, ok := strings.Cut(head, ":")
	if !ok {
		return "", ErrNotMCPCommand
	}
	s := m.find(serverName)
	if s == nil {
		return "", fmt.Errorf("%w: no MCP server %q (for /mcp:%s)", ErrUnknownServer, serverName, head)
	}
	cs, state, reason := s.current()
	if cs == nil {
		return "", fmt.Errorf("MCP server %q is %s%s", serverName, state, suffix(reason))
	}
	var def *sdk.Prompt
	s.mu.Lock()
	for _, p := range s.prompts {
		if p.Name == promptName {
			def = p
		}
	}
	s.mu.Unlock()
	if def == nil {
		return "", fmt.Errorf("MCP server %q has no prompt %q", serverName, promptName)
	}
	args := map[string]string{}
	var positional []string
	for _, a := range strings.Fields(argText) {
		if k, v, ok := strings.Cut(a, "="); ok && k != "" {
			args[k] = v
		} else {
			positional = append(positional, a)
		}
	}
	for _, a := range def.Arguments {
		if _, set := args[a.Name]; set || len(positional) == 0 {
			continue
		}
		args[a.Name], positional = positional[0], positional[1:]
	}
	if len(positional) > 0 && len(def.Arguments) > 0 {
		// The rest of the text goes to the last argument.
		last := def.Arguments[len(def.Arguments)-1].Name
		args[last] = strings.TrimSpace(args[last] + " " + strings.Join(positional, " "))
	}
	for _, a := range def.Arguments {
		if a.Required && args[a.Name] == "" {
			return "", fmt.Errorf("/mcp:%s needs the argument %q", head, a.Name)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	r, err := cs.GetPrompt(cctx, &sdk.GetPromptParams{Name: promptName, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("MCP prompt %s: %w", head, err)
	}
	var parts []string
	for _, msg := range r.Messages {
		switch c := msg.Content.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.EmbeddedResource:
			parts = append(parts, embeddedText(c.Resource))
		case *sdk.ResourceLink:
			parts = append(parts, resourceLinkText(c))
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// ReadResource reads a resource by URI, as text for a prompt. serverName may be
// "" to use the first ready server that lists the URI (else the first
// ready server that answers it).
func (m *Manager) ReadResource(ctx context.Context, serverName, uri string) (string, error) {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var candidates []*server
	for _, s := range servers {
		if serverName != "" && s.cfg.Name != serverName {
			continue
		}
		s.mu.Lock()
		listed := false
		for _, r := range s.resources {
			listed = listed || r.URI == uri
		}
		ready := s.state == StateReady
		s.mu.Unlock()
		if !ready {
			continue
		}
		if listed {
			candidates = append([]*server{s}, candidates...)
		} else {
			candidates = append(candidates, s)
		}
	}
	if len(candidates) == 0 {
		if serverName != "" {
			return "", fmt.Errorf("MCP server %q is not ready", serverName)
		}
		return "", errors.New("no MCP server is ready to read resources")
	}
	var lastErr error
	for _, s := range candidates {
		cs, _, _ := s.current()
		if cs == nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
		r, err := cs.ReadResource(cctx, &sdk.ReadResourceParams{URI: uri})
		cancel()
		if err != nil {
			lastErr = err
			continue
		}
		var parts []string
		for _, c := range r.Contents {
			parts = append(parts, embeddedText(c))
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("reading MCP resource %s: %w", uri, lastErr)
}
