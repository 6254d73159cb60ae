// Package llm holds the message, content and usage types shared by every layer
// of pi-lsp (they are pi's AgentMessage types, serialised exactly as pi writes
// them in its v3 session files), the model and provider registry, and the
// OpenAI-compatible streaming client built on openai-go.
//
// llm imports no other pi-lsp package.
package llm
