package llm

import (
	"context"
	"encoding/json"
)

// Model is one entry of the model registry (pi's models.json shape, resolved
// against its provider).
type Model struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Provider      string          `json:"provider"`
	API           string          `json:"api"` // "openai-completions"
	BaseURL       string          `json:"baseUrl"`
	ContextWindow int             `json:"contextWindow"`
	MaxTokens     int             `json:"maxTokens"`
	Reasoning     bool            `json:"reasoning"`
	Input         []string        `json:"input,omitempty"` // "text", "image"
	Compat        json.RawMessage `json:"compat,omitempty"`
	// Cost is the price in dollars per million tokens of each class
	// (Total unused); usage costs are computed from it.
	Cost Cost `json:"cost,omitzero"`
	// APIKey is resolved from the provider's apiKey (a literal, an env var
	// name, or a "!command") at request time; never serialised.
	APIKey  string            `json:"-"`
	Headers map[string]string `json:"-"`
}

// Ref returns "provider/id".
func (m Model) Ref() string { return m.Provider + "/" + m.ID }

// Tool is a tool definition as the model sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema object
}

// ThinkingLevel is pi's reasoning level.
type ThinkingLevel string

// Thinking levels, as pi names them.
const (
	ThinkingOff    ThinkingLevel = "off"
	ThinkingLow    ThinkingLevel = "low"
	ThinkingMedium ThinkingLevel = "medium"
	ThinkingHigh   ThinkingLevel = "high"
	ThinkingXHigh  ThinkingLevel = "xhigh"
)

// Request is everything one model call needs.
type Request struct {
	Model         Model
	SystemPrompt  string
	Messages      []Message // AgentMessages; the client converts them for the wire
	Tools         []Tool
	ThinkingLevel ThinkingLevel
}

// EventType names a streaming event.
type EventType string

// Streaming events emitted while one model call runs.
const (
	EventStart         EventType = "start"          // the stream opened
	EventTextDelta     EventType = "text_delta"     // Delta appended to text block ContentIndex
	EventThinkingDelta EventType = "thinking_delta" // Delta appended to thinking block ContentIndex
	EventToolCallDelta EventType = "toolcall_delta" // Delta appended to the arguments of tool call block ContentIndex
	EventRetryStart    EventType = "retry_start"    // Attempt failed with Error; waiting Delay ms before the next
	EventRetryEnd      EventType = "retry_end"      // the retry attempt began (Success says whether a stream opened)
)

// Event is one streaming event. Partial is the assistant message as built so
// far; it is owned by the stream and valid only during the callback.
type Event struct {
	Type         EventType
	ContentIndex int
	Delta        string
	Partial      *Message

	Attempt     int
	MaxAttempts int
	DelayMs     int
	Error       string
	Success     bool
}

// Streamer runs one streaming model call. It always returns an assistant
// message: failures (after retries) come back with StopReason "error" and an
// ErrorMessage, an aborted context with StopReason "aborted" and whatever was
// streamed so far. emit is called synchronously, in order.
type Streamer interface {
	Stream(ctx context.Context, req Request, emit func(Event)) Message
}
