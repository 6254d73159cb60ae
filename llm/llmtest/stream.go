package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// streamer writes one scripted response as an SSE stream of
// chat.completion.chunk objects, framed as OpenAI frames them.
type streamer struct {
	w        http.ResponseWriter
	r        *http.Request
	done     <-chan struct{}
	resp     *Response
	model    string
	reqBytes int

	sent    int // data chunks written
	content int // content chunks written
}

type chunkDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	ToolCalls        []chunkToolCall `json:"tool_calls,omitempty"`
}

type chunkToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *wireUsage    `json:"usage"`
}

func toWireUsage(u Usage) *wireUsage {
	w := &wireUsage{PromptTokens: u.Prompt, CompletionTokens: u.Completion, TotalTokens: u.Prompt + u.Completion}
	w.PromptTokensDetails.CachedTokens = u.Cached
	return w
}

func (s *streamer) run() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	s.flush()
	if s.resp.StallAfter <= 0 && !s.sleep(s.resp.StallMs) {
		return
	}
	r := s.resp
	if !s.send(chunkChoice{Delta: chunkDelta{Role: "assistant", Content: ptr("")}}, nil) {
		return
	}
	if r.Malformed && r.Thinking == "" && r.Text == "" && len(r.ToolCalls) == 0 {
		s.sendMalformed()
		return
	}
	for _, piece := range split(r.Thinking, r.ChunkSize, true) {
		if !s.sendContent(chunkChoice{Delta: chunkDelta{ReasoningContent: ptr(piece)}}) {
			return
		}
	}
	for _, piece := range split(r.Text, r.ChunkSize, true) {
		if !s.sendContent(chunkChoice{Delta: chunkDelta{Content: ptr(piece)}}) {
			return
		}
	}
	for i, tc := range r.ToolCalls {
		head := chunkToolCall{Index: i, ID: tc.ID, Type: "function"}
		head.Function.Name = tc.Name
		if !s.sendContent(chunkChoice{Delta: chunkDelta{ToolCalls: []chunkToolCall{head}}}) {
			return
		}
		for _, piece := range split(tc.Arguments, r.ChunkSize, false) {
			part := chunkToolCall{Index: i}
			part.Function.Arguments = piece
			if !s.sendContent(chunkChoice{Delta: chunkDelta{ToolCalls: []chunkToolCall{part}}}) {
				return
			}
		}
	}
	if !s.send(chunkChoice{FinishReason: ptr(r.finishReason())}, nil) {
		return
	}
	if !r.OmitUsage && !s.send(nil, toWireUsage(r.usage(s.reqBytes))) {
		return
	}
	if r.HoldOpenMs > 0 {
		s.sleep(r.HoldOpenMs) // ends early when the client hangs up
		return
	}
	_, _ = fmt.Fprint(s.w, "data: [DONE]\n\n")
	s.flush()
}

// sendContent sends a content chunk, then the malformed chunk if the script
// asks for one after the first content chunk.
func (s *streamer) sendContent(c chunkChoice) bool {
	if !s.send(c, nil) {
		return false
	}
	s.content++
	if s.resp.Malformed && s.content == 1 {
		s.sendMalformed()
		return false
	}
	return true
}

// sendMalformed writes a data chunk of truncated JSON.
func (s *streamer) sendMalformed() {
	_, _ = fmt.Fprint(s.w, "data: {\"id\":\"chatcmpl-fake\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\n")
	s.flush()
}

// send writes one data chunk; c nil means an empty choices array. It returns
// false when the stream must stop (dropped, cancelled or closed).
func (s *streamer) send(c any, usage *wireUsage) bool {
	if s.sent > 0 && !s.sleep(s.resp.ChunkDelayMs) {
		return false
	}
	ch := chunk{ID: "chatcmpl-fake", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: s.model, Choices: []chunkChoice{}, Usage: usage}
	if cc, ok := c.(chunkChoice); ok {
		ch.Choices = []chunkChoice{cc}
	}
	data, err := json.Marshal(ch)
	if err != nil {
		return false
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", data); err != nil {
		return false
	}
	s.flush()
	s.sent++
	if s.resp.DropAfter > 0 && s.sent >= s.resp.DropAfter {
		// Abort the connection without ending the chunked body, as a
		// dropped connection looks to the client.
		panic(http.ErrAbortHandler)
	}
	if s.resp.StallAfter > 0 && s.sent == s.resp.StallAfter {
		return s.sleep(s.resp.StallMs)
	}
	return true
}

func (s *streamer) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// sleep waits ms milliseconds; it returns false if the request or the server
// ended meanwhile.
func (s *streamer) sleep(ms int) bool {
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// split cuts s into pieces of size runes, or, when size is 0, into groups
// of four words (words=true) or 16 runes (words=false).
func split(s string, size int, words bool) []string {
	if s == "" {
		return nil
	}
	if size <= 0 && words {
		var out []string
		parts := strings.SplitAfter(s, " ")
		for i := 0; i < len(parts); i += 4 {
			out = append(out, strings.Join(parts[i:min(i+4, len(parts))], ""))
		}
		return out
	}
	if size <= 0 {
		size = 16
	}
	var out []string
	for len(s) > 0 {
		n, i := 0, 0
		for i < len(s) && n < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// completion builds a non-streaming chat.completion answer.
func completion(r *Response, model string, reqBytes int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Text}
	if r.Thinking != "" {
		msg["reasoning_content"] = r.Thinking
	}
	if len(r.ToolCalls) > 0 {
		var tcs []map[string]any
		for _, tc := range r.ToolCalls {
			tcs = append(tcs, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = tcs
	}
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": r.finishReason()}},
		"usage":   toWireUsage(r.usage(reqBytes)),
	}
}
