package harness

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Editor context: files, selections and images an editor attaches to a
// prompt, and the fuzzy file search behind @-completion.

// ContextItem is one attachment of a prompt (docs/protocol.md, agent/prompt).
type ContextItem struct {
	Type      string // file | selection | image
	Path      string
	StartLine int // 1-based, inclusive; 0 = whole file
	EndLine   int
	Text      *string // file: the buffer's text (unsaved); selection: the selected text
	MimeType  string
	Data      string // image: base64
}

// ContextTag opens every text block an attachment becomes; the display
// shows such blocks as attachments, not as the user's text.
const ContextTag = "<editor-context"

// maxContextBytes caps one attached file (the read tool's limit).
const maxContextBytes = tools.DefaultMaxBytes

// contextBlocks turns attachments into content blocks: each file or
// selection one text block
//
//	<editor-context type="file" path="src/a.go" lines="10-20">
//	…text…
//	</editor-context>
//
// and each image an image block. A file is read through the env (the
// editor's buffer when it serves one) unless its text came with it.
func (h *Harness) contextBlocks(ctx context.Context, items []ContextItem) ([]llm.ContentBlock, error) {
	var out []llm.ContentBlock
	for i, it := range items {
		switch it.Type {
		case "image":
			if !strings.HasPrefix(it.MimeType, "image/") {
				return nil, fmt.Errorf("%w: context[%d]: an image needs an image/* mimeType", ErrInvalid, i)
			}
			if _, err := base64.StdEncoding.DecodeString(it.Data); err != nil || it.Data == "" {
				return nil, fmt.Errorf("%w: context[%d]: image data must be base64", ErrInvalid, i)
			}
			out = append(out, llm.ContentBlock{Type: llm.BlockImage, Data: it.Data, MimeType: it.MimeType})
		case "file", "selection":
			if it.Path == "" {
				return nil, fmt.Errorf("%w: context[%d]: %s needs a path", ErrInvalid, i, it.Type)
			}
			if it.StartLine < 0 || it.EndLine < it.StartLine || (it.StartLine == 0) != (it.EndLine == 0) {
				return nil, fmt.Errorf("%w: context[%d]: range needs 1 <= startLine <= endLine", ErrInvalid, i)
			}
			if it.Type == "selection" && it.Text == nil {
				return nil, fmt.Errorf("%w: context[%d]: a selection needs its text", ErrInvalid, i)
			}
			b, err := h.contextText(ctx, it)
			if err != nil {
				return nil, fmt.Errorf("%w: context[%d]: %v", ErrInvalid, i, err)
			}
			out = append(out, llm.TextBlock(b))
		default:
			return nil, fmt.Errorf("%w: context[%d]: type %q (want file, selection or image)", ErrInvalid, i, it.Type)
		}
	}
	return out, nil
}

func (h *Harness) contextText(ctx context.Context, it ContextItem) (string, error) {
	abs := h.cfg.Env.Resolve(it.Path)
	var text string
	if it.Text != nil {
		text = *it.Text
	} else {
		data, err := h.cfg.Env.ReadFile(ctx, abs)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", it.Path, err)
		}
		text = string(data)
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if it.StartLine > 0 && it.Type == "file" {
		lines := strings.SplitAfter(text, "\n")
		from, to := min(it.StartLine, len(lines)+1)-1, min(it.EndLine, len(lines))
		text = strings.Join(lines[from:to], "")
	}
	note := ""
	if len(text) > maxContextBytes {
		cut := maxContextBytes
		for cut > 0 && text[cut-1] != '\n' && cut > maxContextBytes-512 {
			cut--
		}
		note = fmt.Sprintf("\n[cut at %d of %d bytes; read the file for the rest]", cut, len(text))
		text = text[:cut]
	}
	attrs := fmt.Sprintf(` type=%q path=%q`, it.Type, h.relPath(abs))
	if it.StartLine > 0 {
		attrs += fmt.Sprintf(` lines="%d-%d"`, it.StartLine, it.EndLine)
	}
	if it.Type == "file" && it.Text != nil {
		attrs += ` unsaved="true"`
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return ContextTag + attrs + ">\n" + text + "</editor-context>" + note, nil
}

// relPath is abs relative to the cwd when inside it.
func (h *Harness) relPath(abs string) string {
	if rel, err := filepath.Rel(h.Cwd(), abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// SearchFiles is the fuzzy workspace file search of files/search.
func (h *Harness) SearchFiles(ctx context.Context, query string, limit int) ([]tools.FileMatch, bool, error) {
	return tools.SearchFiles(ctx, h.cfg.Env, h.Cwd(), query, limit)
}

// BuiltinCommand is a slash command the editors run themselves, listed by
// commands/list beside skills and templates.
type BuiltinCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Kind         string `json:"kind"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Method is the protocol method the command maps to.
	Method string `json:"method"`
}

// BuiltinCommands are /new, /compact, /model, /mode, /tree and /name.
func BuiltinCommands() []BuiltinCommand {
	return []BuiltinCommand{
		{Name: "new", Description: "Start a new session", Kind: "builtin", Method: "session/new"},
		{Name: "compact", Description: "Compact the context now", Kind: "builtin", ArgumentHint: "[instructions]", Method: "compaction/run"},
		{Name: "model", Description: "Pick the model", Kind: "builtin", ArgumentHint: "[provider/id]", Method: "model/set"},
		{Name: "mode", Description: "Switch mode (build, plan, fast)", Kind: "builtin", ArgumentHint: "[mode]", Method: "mode/set"},
		{Name: "tree", Description: "Show the session tree", Kind: "builtin", Method: "session/tree"},
		{Name: "name", Description: "Name this session", Kind: "builtin", ArgumentHint: "<name>", Method: "session/setName"},
	}
}
