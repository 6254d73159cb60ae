package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// compat is pi's OpenAICompletionsCompat, fully resolved: what an
// OpenAI-compatible server accepts beyond the common core. Fields follow
// pi's models.json "compat" object (docs/models.md).
type compat struct {
	SupportsStore                 bool
	SupportsDeveloperRole         bool
	SupportsReasoningEffort       bool
	SupportsUsageInStreaming      bool
	MaxTokensField                string // "max_completion_tokens" or "max_tokens"
	RequiresToolResultName        bool
	RequiresAssistantAfterTool    bool
	RequiresThinkingAsText        bool
	RequiresReasoningContentOnAsm bool
	ThinkingFormat                string // openai, deepseek, openrouter, zai, qwen, qwen-chat-template
	SupportsStrictMode            bool
	ZaiToolStream                 bool
	OpenRouterRouting             json.RawMessage
}

// compatOverrides is the JSON shape of a models.json "compat" object; nil
// fields keep the detected value.
type compatOverrides struct {
	SupportsStore                               *bool           `json:"supportsStore"`
	SupportsDeveloperRole                       *bool           `json:"supportsDeveloperRole"`
	SupportsReasoningEffort                     *bool           `json:"supportsReasoningEffort"`
	SupportsUsageInStreaming                    *bool           `json:"supportsUsageInStreaming"`
	MaxTokensField                              *string         `json:"maxTokensField"`
	RequiresToolResultName                      *bool           `json:"requiresToolResultName"`
	RequiresAssistantAfterToolResult            *bool           `json:"requiresAssistantAfterToolResult"`
	RequiresThinkingAsText                      *bool           `json:"requiresThinkingAsText"`
	RequiresReasoningContentOnAssistantMessages *bool           `json:"requiresReasoningContentOnAssistantMessages"`
	ThinkingFormat                              *string         `json:"thinkingFormat"`
	SupportsStrictMode                          *bool           `json:"supportsStrictMode"`
	ZaiToolStream                               *bool           `json:"zaiToolStream"`
	OpenRouterRouting                           json.RawMessage `json:"openRouterRouting"`
}

// detectCompat guesses the compat settings of well-known providers from
// the provider name and base URL, as pi's detectCompat does.
func detectCompat(m Model) compat {
	p, u := m.Provider, m.BaseURL
	isZai := p == "zai" || strings.Contains(u, "api.z.ai")
	isMoonshot := p == "moonshotai" || p == "moonshotai-cn" || strings.Contains(u, "api.moonshot.")
	isCFGateway := p == "cloudflare-ai-gateway" || strings.Contains(u, "gateway.ai.cloudflare.com")
	isCFWorkers := p == "cloudflare-workers-ai" || strings.Contains(u, "api.cloudflare.com")
	isGrok := p == "xai" || strings.Contains(u, "api.x.ai")
	isDeepSeek := p == "deepseek" || strings.Contains(u, "deepseek.com")
	nonStandard := p == "cerebras" || strings.Contains(u, "cerebras.ai") || isGrok ||
		strings.Contains(u, "chutes.ai") || isDeepSeek || isZai || isMoonshot ||
		p == "opencode" || strings.Contains(u, "opencode.ai") || isCFWorkers || isCFGateway
	maxField := "max_completion_tokens"
	if strings.Contains(u, "chutes.ai") || isMoonshot || isCFGateway {
		maxField = "max_tokens"
	}
	format := "openai"
	switch {
	case isDeepSeek:
		format = "deepseek"
	case isZai:
		format = "zai"
	case p == "openrouter" || strings.Contains(u, "openrouter.ai"):
		format = "openrouter"
	}
	return compat{
		SupportsStore:                 !nonStandard,
		SupportsDeveloperRole:         !nonStandard,
		SupportsReasoningEffort:       !isGrok && !isZai && !isMoonshot && !isCFGateway,
		SupportsUsageInStreaming:      true,
		MaxTokensField:                maxField,
		RequiresReasoningContentOnAsm: isDeepSeek,
		ThinkingFormat:                format,
		SupportsStrictMode:            !isMoonshot && !isCFGateway,
	}
}

// resolveCompat applies the model's compat overrides (already merged from
// provider and model level by the registry) to the detected settings.
func resolveCompat(m Model) (compat, error) {
	c := detectCompat(m)
	if len(m.Compat) == 0 || string(m.Compat) == "null" {
		return c, nil
	}
	var o compatOverrides
	if err := json.Unmarshal(m.Compat, &o); err != nil {
		return c, fmt.Errorf("llm: model %s: compat: %w", m.Ref(), err)
	}
	setB := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setS := func(dst *string, v *string) {
		if v != nil && *v != "" {
			*dst = *v
		}
	}
	setB(&c.SupportsStore, o.SupportsStore)
	setB(&c.SupportsDeveloperRole, o.SupportsDeveloperRole)
	setB(&c.SupportsReasoningEffort, o.SupportsReasoningEffort)
	setB(&c.SupportsUsageInStreaming, o.SupportsUsageInStreaming)
	setS(&c.MaxTokensField, o.MaxTokensField)
	setB(&c.RequiresToolResultName, o.RequiresToolResultName)
	setB(&c.RequiresAssistantAfterTool, o.RequiresAssistantAfterToolResult)
	setB(&c.RequiresThinkingAsText, o.RequiresThinkingAsText)
	setB(&c.RequiresReasoningContentOnAsm, o.RequiresReasoningContentOnAssistantMessages)
	setS(&c.ThinkingFormat, o.ThinkingFormat)
	setB(&c.SupportsStrictMode, o.SupportsStrictMode)
	setB(&c.ZaiToolStream, o.ZaiToolStream)
	if len(o.OpenRouterRouting) > 0 && string(o.OpenRouterRouting) != "null" {
		c.OpenRouterRouting = o.OpenRouterRouting
	}
	return c, nil
}

// mergeCompat merges a model-level compat object over a provider-level one
// (top-level keys of the model win), as pi's mergeCompat does.
func mergeCompat(provider, model json.RawMessage) (json.RawMessage, error) {
	isSet := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	if !isSet(model) {
		return provider, nil
	}
	if !isSet(provider) {
		return model, nil
	}
	var p, m map[string]json.RawMessage
	if err := json.Unmarshal(provider, &p); err != nil {
		return nil, fmt.Errorf("provider compat: %w", err)
	}
	if err := json.Unmarshal(model, &m); err != nil {
		return nil, fmt.Errorf("model compat: %w", err)
	}
	for k, v := range m {
		p[k] = v
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("compat: %w", err)
	}
	return out, nil
}
