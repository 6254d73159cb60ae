package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// maxOutputTokens caps the requested output as pi does (min(maxTokens, 32000)).
const maxOutputTokens = 32000

// buildParams converts a Request to the Chat Completions request body, as
// pi's openai-completions provider builds it.
func buildParams(req Request, c compat) (openai.ChatCompletionNewParams, error) {
	m := req.Model
	msgs, err := convertMessages(req, c)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	p := openai.ChatCompletionNewParams{Model: m.ID, Messages: msgs}
	extra := map[string]any{"stream": true}
	if c.SupportsUsageInStreaming {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}
	if c.SupportsStore {
		p.Store = param.NewOpt(false)
	}
	if m.MaxTokens > 0 {
		n := int64(min(m.MaxTokens, maxOutputTokens))
		if c.MaxTokensField == "max_tokens" {
			p.MaxTokens = param.NewOpt(n)
		} else {
			p.MaxCompletionTokens = param.NewOpt(n)
		}
	}
	if len(req.Tools) > 0 {
		for _, t := range req.Tools {
			fn := shared.FunctionDefinitionParam{Name: t.Name, Description: param.NewOpt(t.Description)}
			if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
				if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
					return p, fmt.Errorf("llm: tool %s: parameters: %w", t.Name, err)
				}
			}
			if c.SupportsStrictMode {
				fn.Strict = param.NewOpt(false)
			}
			p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
		}
		if c.ZaiToolStream {
			extra["tool_stream"] = true
		}
	} else if hasToolHistory(req.Messages) {
		// Proxies in front of Anthropic want tools whenever the history has
		// tool calls.
		extra["tools"] = []any{}
	}
	applyThinking(&p, extra, m, c, effortFor(req.ThinkingLevel))
	if strings.Contains(m.BaseURL, "openrouter.ai") && len(c.OpenRouterRouting) > 0 {
		extra["provider"] = c.OpenRouterRouting
	}
	p.SetExtraFields(extra)
	return p, nil
}

// effortFor maps a thinking level to a reasoning effort; "" means off.
func effortFor(l ThinkingLevel) string {
	switch l {
	case "", ThinkingOff:
		return ""
	case ThinkingXHigh:
		return "high"
	default:
		return string(l)
	}
}

// applyThinking sets the reasoning parameters for the compat's thinking
// format; nothing is sent for models without reasoning.
func applyThinking(p *openai.ChatCompletionNewParams, extra map[string]any, m Model, c compat, effort string) {
	if !m.Reasoning {
		return
	}
	switch c.ThinkingFormat {
	case "zai", "qwen":
		extra["enable_thinking"] = effort != ""
	case "qwen-chat-template":
		extra["chat_template_kwargs"] = map[string]any{"enable_thinking": effort != "", "preserve_thinking": true}
	case "deepseek":
		if effort == "" {
			extra["thinking"] = map[string]any{"type": "disabled"}
		} else {
			extra["thinking"] = map[string]any{"type": "enabled"}
			p.ReasoningEffort = shared.ReasoningEffort(effort)
		}
	case "openrouter":
		if effort == "" {
			effort = "none"
		}
		extra["reasoning"] = map[string]any{"effort": effort}
	default:
		if effort != "" && c.SupportsReasoningEffort {
			p.ReasoningEffort = shared.ReasoningEffort(effort)
		}
	}
}

func hasToolHistory(msgs []Message) bool {
	for i := range msgs {
		if msgs[i].Role == RoleToolResult {
			return true
		}
		if msgs[i].Role == RoleAssistant && len(msgs[i].ToolCalls()) > 0 {
			return true
		}
	}
	return false
}

// convertMessages builds the chat messages: the system prompt, then the
// AgentMessages converted (ToModelMessages) and prepared for the model
// (transformForModel).
func convertMessages(req Request, c compat) ([]openai.ChatCompletionMessageParamUnion, error) {
	m := req.Model
	var out []openai.ChatCompletionMessageParamUnion
	if req.SystemPrompt != "" {
		if m.Reasoning && c.SupportsDeveloperRole {
			out = append(out, openai.DeveloperMessage(req.SystemPrompt))
		} else {
			out = append(out, openai.SystemMessage(req.SystemPrompt))
		}
	}
	msgs := transformForModel(ToModelMessages(req.Messages), m)
	vision := hasImageInput(m)
	var lastRole Role
	for i := 0; i < len(msgs); i++ {
		msg := &msgs[i]
		if c.RequiresAssistantAfterTool && lastRole == RoleToolResult && msg.Role == RoleUser {
			out = append(out, openai.AssistantMessage("I have processed the tool results."))
		}
		switch msg.Role {
		case RoleUser:
			u, ok := userMessage(msg.Content)
			if !ok {
				continue
			}
			out = append(out, u)
		case RoleAssistant:
			a, ok, err := assistantMessage(msg, m, c)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			out = append(out, a)
		case RoleToolResult:
			// A run of tool results; their images follow as one user message.
			var images []openai.ChatCompletionContentPartUnionParam
			j := i
			for ; j < len(msgs) && msgs[j].Role == RoleToolResult; j++ {
				tr := &msgs[j]
				var texts []string
				hasImage := false
				for _, b := range tr.Content {
					switch b.Type {
					case BlockText:
						texts = append(texts, b.Text)
					case BlockImage:
						hasImage = true
						if vision {
							images = append(images, imagePart(b))
						}
					}
				}
				text := strings.Join(texts, "\n")
				if text == "" && hasImage {
					text = "(see attached image)"
				}
				t := openai.ToolMessage(text, tr.ToolCallID)
				if c.RequiresToolResultName && tr.ToolName != "" {
					t.OfTool.SetExtraFields(map[string]any{"name": tr.ToolName})
				}
				out = append(out, t)
			}
			i = j - 1
			lastRole = RoleToolResult
			if len(images) > 0 {
				if c.RequiresAssistantAfterTool {
					out = append(out, openai.AssistantMessage("I have processed the tool results."))
				}
				parts := append([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart("Attached image(s) from tool result:")}, images...)
				out = append(out, openai.UserMessage(parts))
				lastRole = RoleUser
			}
			continue
		}
		lastRole = msg.Role
	}
	return out, nil
}

func imagePart(b ContentBlock) openai.ChatCompletionContentPartUnionParam {
	return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
		URL: "data:" + b.MimeType + ";base64," + b.Data,
	})
}

// userMessage sends one text block as a plain string and anything else as
// content parts; it reports false for empty content.
func userMessage(content []ContentBlock) (openai.ChatCompletionMessageParamUnion, bool) {
	if len(content) == 1 && content[0].Type == BlockText {
		return openai.UserMessage(content[0].Text), true
	}
	var parts []openai.ChatCompletionContentPartUnionParam
	for _, b := range content {
		switch b.Type {
		case BlockText:
			parts = append(parts, openai.TextContentPart(b.Text))
		case BlockImage:
			parts = append(parts, imagePart(b))
		}
	}
	if len(parts) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	return openai.UserMessage(parts), true
}

// assistantMessage converts an assistant message; it reports false when
// there is nothing to send (no text and no tool calls).
func assistantMessage(msg *Message, m Model, c compat) (openai.ChatCompletionMessageParamUnion, bool, error) {
	var a openai.ChatCompletionAssistantMessageParam
	extra := map[string]any{}
	var texts []string
	var thinking []ContentBlock
	for _, b := range msg.Content {
		switch b.Type {
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				texts = append(texts, b.Text)
			}
		case BlockThinking:
			if strings.TrimSpace(b.Thinking) != "" {
				thinking = append(thinking, b)
			}
		}
	}
	text := strings.Join(texts, "")
	hasContent := text != ""
	switch {
	case len(thinking) > 0 && c.RequiresThinkingAsText:
		parts := make([]string, len(thinking))
		for i, t := range thinking {
			parts[i] = t.Thinking
		}
		var arr []openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion
		for _, s := range append([]string{strings.Join(parts, "\n\n")}, texts...) {
			arr = append(arr, openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{
				OfText: &openai.ChatCompletionContentPartTextParam{Text: s}})
		}
		a.Content.OfArrayOfContentParts = arr
		hasContent = true
	default:
		if text != "" {
			a.Content.OfString = param.NewOpt(text)
		}
		// The thinking goes back in the field it came from (e.g.
		// reasoning_content), which the block's signature names.
		if len(thinking) > 0 && isReasoningField(thinking[0].ThinkingSignature) {
			parts := make([]string, len(thinking))
			for i, t := range thinking {
				parts[i] = t.Thinking
			}
			extra[thinking[0].ThinkingSignature] = strings.Join(parts, "\n")
		}
	}
	for _, tc := range msg.ToolCalls() {
		args, err := compactArgs(tc.Arguments)
		if err != nil {
			return openai.ChatCompletionMessageParamUnion{}, false, fmt.Errorf("llm: tool call %s arguments: %w", tc.ID, err)
		}
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
			},
		})
	}
	if c.RequiresReasoningContentOnAsm && m.Reasoning {
		if _, ok := extra["reasoning_content"]; !ok {
			extra["reasoning_content"] = ""
		}
	}
	if !hasContent && len(a.ToolCalls) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false, nil
	}
	if !hasContent {
		if c.RequiresAssistantAfterTool {
			a.Content.OfString = param.NewOpt("")
		} else {
			extra["content"] = nil // some servers want the key, as null
		}
	}
	if len(extra) > 0 {
		a.SetExtraFields(extra)
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, true, nil
}

// isReasoningField reports whether a thinking signature names a reasoning
// field of a Chat Completions delta (the only signatures this client
// writes); other providers' signatures are opaque and not sent.
func isReasoningField(sig string) bool {
	switch sig {
	case "reasoning_content", "reasoning", "reasoning_text":
		return true
	}
	return false
}

// compactArgs returns the arguments as compact JSON text ("{}" when empty).
func compactArgs(raw json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}", nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}
