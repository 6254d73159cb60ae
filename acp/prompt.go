package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-lsp/pi-lsp/harness"
	"github.com/pi-lsp/pi-lsp/llm"
)

// Prompt runs a turn. A prompt that arrives while a turn runs is queued and
// answered when its own turn ends; session/cancel answers it cancelled.
func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.get(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, _ := toHarnessPrompt(p.Prompt)
	if strings.TrimSpace(text) == "" && !hasImage(p.Prompt) {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt has no text, resource or image"})
	}
	pp := &pending{text: text, blocks: p.Prompt, seq: promptSeq(p.Meta), done: make(chan promptResult, 1)}
	s.enqueue(pp)
	// ctx is not the turn's: the SDK cancels a session's earlier prompt
	// when the next arrives, and a queued prompt must not cancel the turn.
	// session/cancel reaches the harness through Cancel.
	select {
	case r := <-pp.done:
		if r.err != nil {
			return sdk.PromptResponse{}, r.err
		}
		return sdk.PromptResponse{StopReason: r.stop, Usage: r.usage}, nil
	case <-a.ctx.Done():
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
}

func hasImage(bs []sdk.ContentBlock) bool {
	for _, b := range bs {
		if b.Image != nil {
			return true
		}
	}
	return false
}

// toHarnessPrompt turns ACP content into the harness's text and images:
// text as it is, resource links as @uri mentions, embedded resources (file
// contents the editor attached) as <file> blocks.
func toHarnessPrompt(bs []sdk.ContentBlock) (string, []llm.ContentBlock) {
	var parts []string
	var images []llm.ContentBlock
	for _, b := range bs {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "@"+uriPath(b.ResourceLink.Uri))
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				t := r.TextResourceContents
				parts = append(parts, fmt.Sprintf("<file path=%q>\n%s\n</file>", uriPath(t.Uri), t.Text))
			case r.BlobResourceContents != nil:
				parts = append(parts, fmt.Sprintf("(attached binary resource %s, not included)", r.BlobResourceContents.Uri))
			}
		case b.Image != nil:
			images = append(images, llm.ContentBlock{Type: llm.BlockImage, Data: b.Image.Data, MimeType: b.Image.MimeType})
		case b.Audio != nil:
			parts = append(parts, "(attached audio, not supported)")
		}
	}
	return strings.Join(parts, "\n\n"), images
}

func uriPath(uri string) string {
	if p, ok := strings.CutPrefix(uri, "file://"); ok {
		return p
	}
	return uri
}

// builtin runs /compact, /mode, /model, /goal, /tree and /new; it reports whether
// p was one.
func (s *sess) builtin(p *pending) bool {
	text := strings.TrimSpace(p.text)
	if !strings.HasPrefix(text, "/") {
		return false
	}
	name, arg, _ := strings.Cut(text[1:], " ")
	arg = strings.TrimSpace(arg)
	ctx := context.Background()
	var reply string
	var err error
	switch name {
	case "compact":
		var r harness.CompactionResult
		if r, err = s.h.Compact(ctx, arg); err == nil {
			reply = fmt.Sprintf("Compacted: %d tokens before.", r.TokensBefore)
		}
	case "mode":
		if arg == "" {
			reply = "Mode: " + s.h.ModeState().Mode
			break
		}
		var ms harness.ModeState
		if ms, err = s.h.SetMode(ctx, arg); err == nil {
			reply = "Mode: " + ms.Mode
		}
	case "model":
		if arg == "" {
			var b strings.Builder
			for _, o := range s.configOptions(ctx) {
				if o.Select != nil && o.Select.Id == configModel && o.Select.Options.Ungrouped != nil {
					for _, m := range *o.Select.Options.Ungrouped {
						fmt.Fprintf(&b, "- %s\n", m.Value)
					}
				}
			}
			reply = "Models:\n" + b.String()
			break
		}
		var ref string
		if ref, err = s.h.SetModel(ctx, arg); err == nil {
			reply = "Model: " + ref
		}
	case "goal":
		reply, err = s.runGoalCommand(ctx, arg)
	case "tree":
		reply = s.tree(ctx)
	case "rewind", "undo":
		reply, err = s.rewind(ctx, name, arg) // rewind.go
	case "new":
		var info harness.SessionInfo
		if info, err = s.h.NewSession(ctx, s.cwd); err == nil {
			reply = "New pi session " + info.ID + " (the earlier one stays in session/list)."
		}
	default:
		return false
	}
	if err != nil {
		reply = "/" + name + ": " + err.Error()
	}
	s.push(item{fn: func() {
		s.flush()
		s.send(sdk.UpdateAgentMessageText(reply))
	}})
	s.finishHead(p, sdk.StopReasonEndTurn)
	return true
}

// tree renders the current branch, one line per message.
func (s *sess) tree(ctx context.Context) string {
	info := s.h.SessionInfo()
	if info.ID == "" {
		return "No session yet."
	}
	lines, total, err := s.h.BranchLines(50)
	if err != nil {
		return "tree: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s, %d entries on this branch:\n", info.ID, total)
	for _, e := range lines {
		line := e.Type
		if e.Role != "" {
			line = e.Role + ": " + firstLine(e.Text, 70)
		}
		if e.Label != "" {
			line += " [" + e.Label + "]"
		}
		fmt.Fprintf(&b, "- %s %s\n", e.ID, line)
	}
	return b.String()
}

// steeringParams are _session/steering's params.
type steeringParams struct {
	SessionID sdk.SessionId      `json:"sessionId"`
	Prompt    []sdk.ContentBlock `json:"prompt"`
}

// HandleExtensionMethod serves _session/steering: inject a message after
// the current tool calls, or start a turn when nothing runs.
func (a *agent) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != "_session/steering" {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p steeringParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if p.SessionID == "" {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	s, err := a.get(p.SessionID)
	if err != nil {
		return nil, err
	}
	text, images := toHarnessPrompt(p.Prompt)
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return map[string]string{"outcome": "promptRequired"}, nil
	}
	if s.h.IsRunning() {
		if err := s.h.Steer(ctx, text); err != nil {
			return map[string]any{"outcome": "failed", "error": err.Error()}, nil
		}
		return map[string]string{"outcome": "injected"}, nil
	}
	// Nothing runs: the message becomes a turn of its own (after any prompt
	// already queued), answered to nobody.
	s.enqueue(&pending{text: text, blocks: p.Prompt})
	return map[string]string{"outcome": "startedNewTurn"}, nil
}
