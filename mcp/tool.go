package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// maxToolName is the longest tool name providers accept (OpenAI: 64).
const maxToolName = 64

// ToolName is the model's name for a server's tool: mcp__<server>__<tool>,
// with characters providers refuse replaced by "_".
func ToolName(server, tool string) string {
	n := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(n) > maxToolName {
		n = n[:maxToolName]
	}
	return n
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// Tools returns the tools of every ready server, in server order. It does
// not start anything (Start does).
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var out []tools.Tool
	seen := map[string]bool{}
	for _, s := range servers {
		s.mu.Lock()
		if s.state == StateReady {
			for _, t := range s.tools {
				name := ToolName(s.cfg.Name, t.Name)
				if seen[name] {
					continue
				}
				seen[name] = true
				out = append(out, &tool{m: m, s: s, def: t, name: name})
			}
		}
		s.mu.Unlock()
	}
	return out
}

// tool is one MCP tool as a tools.Tool.
type tool struct {
	m    *Manager
	s    *server
	def  *sdk.Tool
	name string
}

func (t *tool) Definition() llm.Tool {
	schema, err := json.Marshal(t.def.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = []byte(`{"type":"object","properties":{}}`)
	}
	desc := t.def.Description
	if desc == "" {
		desc = t.def.Title
	}
	return llm.Tool{Name: t.name, Description: desc, Parameters: schema}
}

func (t *tool) Category() tools.Category { return tools.CategoryMCP }

func (t *tool) Execute(ctx context.Context, call tools.Call, x tools.Exec) (res tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = errResult(fmt.Sprintf("internal error in %s: %v", t.name, p))
		}
		res = tools.Finalize(res)
	}()
	cs, state, reason := t.s.current()
	if cs == nil {
		msg := fmt.Sprintf("MCP server %q is not running (%s", t.s.cfg.Name, state)
		if reason != "" {
			msg += ": " + reason
		}
		return errResult(msg + "). Do not retry now; continue without this tool or tell the user.")
	}
	var args map[string]any
	if len(call.Args) > 0 {
		if err := json.Unmarshal(call.Args, &args); err != nil {
			return errResult(fmt.Sprintf("Invalid arguments for %s: %v", t.name, err))
		}
	}
	timeout := t.m.opts.CallTimeout
	if t.s.cfg.TimeoutMs > 0 {
		timeout = time.Duration(t.s.cfg.TimeoutMs) * time.Millisecond
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: t.def.Name, Arguments: args})
	switch {
	case err != nil && ctx.Err() != nil:
		return errResult("Operation aborted: the MCP call was cancelled.")
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return errResult(fmt.Sprintf("MCP tool %s timed out after %s: the server did not answer; the call was cancelled.", t.name, timeout))
	case err != nil:
		return errResult(fmt.Sprintf("MCP tool %s failed: %v", t.name, err))
	}
	return convertResult(r)
}

func errResult(text string) tools.Result {
	return tools.Result{Content: []llm.ContentBlock{llm.TextBlock(text)}, IsError: true}
}

// convertResult maps MCP content to tool result content: text, images and
// resource links (as text the model can act on); embedded text resources
// are inlined. Text is truncated by the built-in limits.
func convertResult(r *sdk.CallToolResult) tools.Result {
	var text []string
	var images []llm.ContentBlock
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ImageContent:
			images = append(images, llm.ContentBlock{Type: llm.BlockImage, Data: base64.StdEncoding.EncodeToString(c.Data), MimeType: c.MIMEType})
		case *sdk.AudioContent:
			text = append(text, fmt.Sprintf("[audio: %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			text = append(text, resourceLinkText(c))
		case *sdk.EmbeddedResource:
			text = append(text, embeddedText(c.Resource))
		default:
			b, _ := json.Marshal(c)
			text = append(text, string(b))
		}
	}
	if len(text) == 0 && r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		text = append(text, string(b))
	}
	joined, tr := tools.TruncateExternal(strings.Join(text, "\n"))
	var content []llm.ContentBlock
	if joined != "" || len(images) == 0 {
		content = append(content, llm.TextBlock(joined))
	}
	content = append(content, images...)
	res := tools.Result{Content: content, IsError: r.IsError}
	if tr.Truncated {
		res.Details, _ = json.Marshal(map[string]any{"truncation": tr})
	}
	return res
}

func resourceLinkText(c *sdk.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[resource link: %s", c.URI)
	if c.Name != "" {
		fmt.Fprintf(&b, " name=%q", c.Name)
	}
	if c.MIMEType != "" {
		fmt.Fprintf(&b, " mimeType=%s", c.MIMEType)
	}
	if c.Description != "" {
		fmt.Fprintf(&b, " — %s", c.Description)
	}
	b.WriteString("]")
	return b.String()
}

func embeddedText(r *sdk.ResourceContents) string {
	if r == nil {
		return ""
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes of binary data, not shown]", r.URI, r.MIMEType, len(r.Blob))
}
