package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolCall is one tool call the fake model makes.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON text of the arguments, streamed in pieces. In a
	// JSON script it may be given as a string or as a JSON object.
	Arguments string `json:"arguments"`
}

// UnmarshalJSON accepts arguments as a JSON string or as any JSON value
// (usually an object), which is kept as its compact text.
func (tc *ToolCall) UnmarshalJSON(data []byte) error {
	var aux struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return fmt.Errorf("llmtest: tool call: %w", err)
	}
	tc.ID, tc.Name, tc.Arguments = aux.ID, aux.Name, ""
	raw := bytes.TrimSpace(aux.Arguments)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		if err := json.Unmarshal(raw, &tc.Arguments); err != nil {
			return fmt.Errorf("llmtest: tool call arguments: %w", err)
		}
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return fmt.Errorf("llmtest: tool call arguments: %w", err)
		}
		tc.Arguments = buf.String()
	}
	return nil
}

// Usage is the token usage the fake reports. Prompt includes Cached.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Cached     int `json:"cached"`
}

// Response is one scripted answer. The zero value streams an empty "stop"
// answer with a plausible usage.
type Response struct {
	// Match, if set, must be a substring of the raw request body for this
	// response to be used.
	Match string `json:"match,omitempty"`
	// Repeat responses are never consumed: they answer every matching request.
	Repeat bool `json:"repeat,omitempty"`

	// Thinking is streamed first, as reasoning_content deltas.
	Thinking string `json:"thinking,omitempty"`
	// Text is streamed as content deltas after the thinking.
	Text string `json:"text,omitempty"`
	// ToolCalls are streamed after the text, one after the other, each with
	// its own index: a header delta (id, name, empty arguments) and then the
	// arguments in pieces.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Usage is reported in a final chunk with empty choices. When nil the
	// fake reports prompt = request bytes / 4 and completion = output
	// characters / 4.
	Usage *Usage `json:"usage,omitempty"`
	// FinishReason defaults to "tool_calls" when there are tool calls and
	// "stop" otherwise.
	FinishReason string `json:"finishReason,omitempty"`

	// Status, when set and not 200, answers with that HTTP status and a JSON
	// error body {"error":{"message":Error,...}} instead of a stream.
	Status int `json:"status,omitempty"`
	// Error is the message of the error body (default "fakellm: status N").
	Error string `json:"error,omitempty"`
	// RetryAfterMs sets the retry-after-ms and Retry-After headers of an
	// error answer.
	RetryAfterMs int `json:"retryAfterMs,omitempty"`

	// DropAfter, when > 0, aborts the connection after that many data chunks
	// (the first chunk carries only the role, so DropAfter 1 drops the stream
	// before any content).
	DropAfter int `json:"dropAfter,omitempty"`
	// Malformed sends a chunk of broken JSON after the first content chunk
	// and then ends the stream.
	Malformed bool `json:"malformed,omitempty"`
	// StallMs pauses after the response headers, before the first chunk,
	// or, with StallAfter, after that many data chunks.
	StallMs    int `json:"stallMs,omitempty"`
	StallAfter int `json:"stallAfter,omitempty"`
	// ChunkDelayMs pauses between chunks.
	ChunkDelayMs int `json:"chunkDelayMs,omitempty"`
	// AwaitInFlight, when > 1, holds the answer until that many requests
	// (this one included) are being answered at once, or 10 s have passed:
	// a test of concurrent requests then does not depend on timing.
	AwaitInFlight int `json:"awaitInFlight,omitempty"`
	// ChunkSize is the number of characters per text, thinking and argument
	// chunk. By default text and thinking go four words per chunk and
	// arguments 16 characters per chunk.
	ChunkSize int `json:"chunkSize,omitempty"`
	// HoldOpenMs keeps the connection open that long after the last chunk,
	// without sending [DONE] (a provider that holds an answered stream).
	HoldOpenMs int `json:"holdOpenMs,omitempty"`
	// OmitUsage leaves out the final usage chunk.
	OmitUsage bool `json:"omitUsage,omitempty"`
}

func (r *Response) finishReason() string {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// usage returns the scripted usage or a plausible one for a request of
// reqBytes bytes.
func (r *Response) usage(reqBytes int) Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	out := len(r.Text) + len(r.Thinking)
	for _, tc := range r.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	return Usage{Prompt: max(1, reqBytes/4), Completion: max(1, out/4)}
}

// ParseScript reads a JSON script: an array of responses (a single response
// object is accepted too).
func ParseScript(data []byte) ([]Response, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var r Response
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("llmtest: script: %w", err)
		}
		return []Response{r}, nil
	}
	var rs []Response
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, fmt.Errorf("llmtest: script: %w", err)
	}
	return rs, nil
}
