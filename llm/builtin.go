package llm

import "strings"

// builtinProvider is a provider pi-lsp knows without configuration.
type builtinProvider struct {
	name    string
	baseURL string
	keyEnv  string // "" when no key is needed
	compat  string // JSON compat object, "" for none
	models  []Model
}

// Context windows, output limits and prices follow pi's model catalogue
// (@mariozechner/pi-ai models.generated.js) where it lists the model.
func builtinProviders(env map[string]string) []builtinProvider {
	cost := func(in, out, cacheRead float64) Cost { return Cost{Input: in, Output: out, CacheRead: cacheRead} }
	vision := []string{"text", "image"}
	text := []string{"text"}
	ollamaURL := "http://localhost:11434/v1"
	if h := env["OLLAMA_HOST"]; h != "" {
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		ollamaURL = strings.TrimRight(h, "/") + "/v1"
	}
	return []builtinProvider{
		{name: "openai", baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", models: []Model{
			{ID: "gpt-4.1", Name: "GPT-4.1", ContextWindow: 1047576, MaxTokens: 32768, Input: vision, Cost: cost(2, 8, 0.5)},
			{ID: "gpt-4.1-mini", Name: "GPT-4.1 mini", ContextWindow: 1047576, MaxTokens: 32768, Input: vision, Cost: cost(0.4, 1.6, 0.1)},
			{ID: "gpt-4o", Name: "GPT-4o", ContextWindow: 128000, MaxTokens: 16384, Input: vision, Cost: cost(2.5, 10, 1.25)},
			{ID: "gpt-4o-mini", Name: "GPT-4o mini", ContextWindow: 128000, MaxTokens: 16384, Input: vision, Cost: cost(0.15, 0.6, 0.08)},
			{ID: "gpt-5", Name: "GPT-5", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true, Input: vision, Cost: cost(1.25, 10, 0.125)},
			{ID: "gpt-5-mini", Name: "GPT-5 Mini", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true, Input: vision, Cost: cost(0.25, 2, 0.025)},
			{ID: "o4-mini", Name: "o4-mini", ContextWindow: 200000, MaxTokens: 100000, Reasoning: true, Input: vision, Cost: cost(1.1, 4.4, 0.28)},
		}},
		{name: "openrouter", baseURL: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", models: []Model{
			{ID: "anthropic/claude-sonnet-4.5", Name: "Anthropic: Claude Sonnet 4.5", ContextWindow: 1000000, MaxTokens: 64000, Reasoning: true, Input: vision, Cost: Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
			{ID: "openai/gpt-5-mini", Name: "OpenAI: GPT-5 Mini", ContextWindow: 400000, MaxTokens: 128000, Reasoning: true, Input: vision, Cost: cost(0.25, 2, 0.025)},
			{ID: "google/gemini-2.5-flash", Name: "Google: Gemini 2.5 Flash", ContextWindow: 1048576, MaxTokens: 65535, Reasoning: true, Input: vision, Cost: cost(0.3, 2.5, 0.03)},
			{ID: "qwen/qwen3-coder", Name: "Qwen: Qwen3 Coder 480B A35B", ContextWindow: 262144, MaxTokens: 65536, Input: text, Cost: cost(0.22, 1.8, 0)},
			{ID: "deepseek/deepseek-chat-v3.1", Name: "DeepSeek: DeepSeek V3.1", ContextWindow: 32768, MaxTokens: 7168, Reasoning: true, Input: text, Cost: cost(0.15, 0.75, 0)},
		}},
		{name: "deepseek", baseURL: "https://api.deepseek.com", keyEnv: "DEEPSEEK_API_KEY", models: []Model{
			{ID: "deepseek-v4-flash", Name: "DeepSeek V4 Flash", ContextWindow: 1000000, MaxTokens: 384000, Reasoning: true, Input: text, Cost: cost(0.14, 0.28, 0.0028)},
			{ID: "deepseek-v4-pro", Name: "DeepSeek V4 Pro", ContextWindow: 1000000, MaxTokens: 384000, Reasoning: true, Input: text, Cost: cost(0.435, 0.87, 0.003625)},
			{ID: "deepseek-chat", Name: "DeepSeek Chat", ContextWindow: 128000, MaxTokens: 8192, Input: text},
			{ID: "deepseek-reasoner", Name: "DeepSeek Reasoner", ContextWindow: 128000, MaxTokens: 65536, Reasoning: true, Input: text},
		}},
		{name: "groq", baseURL: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", models: []Model{
			{ID: "moonshotai/kimi-k2-instruct-0905", Name: "Kimi K2 Instruct 0905", ContextWindow: 262144, MaxTokens: 16384, Input: text, Cost: cost(1, 3, 0)},
			{ID: "openai/gpt-oss-120b", Name: "GPT OSS 120B", ContextWindow: 131072, MaxTokens: 65536, Reasoning: true, Input: text, Cost: cost(0.15, 0.6, 0)},
			{ID: "llama-3.3-70b-versatile", Name: "Llama 3.3 70B Versatile", ContextWindow: 131072, MaxTokens: 32768, Input: text, Cost: cost(0.59, 0.79, 0)},
			{ID: "qwen/qwen3-32b", Name: "Qwen3 32B", ContextWindow: 131072, MaxTokens: 40960, Reasoning: true, Input: text, Cost: cost(0.29, 0.59, 0)},
		}},
		// Gemini through its OpenAI-compatible endpoint, which rejects
		// fields outside the common core.
		{name: "gemini", baseURL: "https://generativelanguage.googleapis.com/v1beta/openai", keyEnv: "GEMINI_API_KEY",
			compat: `{"supportsStore":false,"supportsDeveloperRole":false,"supportsStrictMode":false,"maxTokensField":"max_tokens"}`,
			models: []Model{
				{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", ContextWindow: 1048576, MaxTokens: 65536, Reasoning: true, Input: vision, Cost: cost(0.3, 2.5, 0.03)},
				{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro", ContextWindow: 1048576, MaxTokens: 65536, Reasoning: true, Input: vision, Cost: cost(1.25, 10, 0.125)},
			}},
		// A local Ollama needs no key; its base URL follows $OLLAMA_HOST.
		{name: "ollama", baseURL: ollamaURL,
			compat: `{"supportsDeveloperRole":false,"supportsStore":false}`,
			models: []Model{
				{ID: "llama3.1:8b", Name: "Llama 3.1 8B (local)", ContextWindow: 128000, MaxTokens: 16384, Input: text},
				{ID: "qwen2.5-coder:7b", Name: "Qwen2.5 Coder 7B (local)", ContextWindow: 32768, MaxTokens: 16384, Input: text},
				{ID: "gpt-oss:20b", Name: "gpt-oss 20B (local)", ContextWindow: 131072, MaxTokens: 32768, Reasoning: true, Input: text},
			}},
	}
}

// BuiltinKeyEnvVars lists the environment variables built-in providers
// take their API key from, in provider order.
func BuiltinKeyEnvVars() []string {
	var out []string
	for _, p := range builtinProviders(nil) {
		if p.keyEnv != "" {
			out = append(out, p.keyEnv)
		}
	}
	return out
}
