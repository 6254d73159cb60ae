package llm_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// memTransport answers every request with the same SSE body from memory,
// so the benchmark measures the client, not the network.
type memTransport struct{ body []byte }

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(m.body)), Request: r}, nil
}

// recordedStream builds n chunks shaped like OpenAI's (same fields and
// sizes as the openai-text-usage recording), ending with usage and [DONE].
func recordedStream(n int, delta func(i int) string) []byte {
	var b bytes.Buffer
	head := `{"id":"chatcmpl-DuLdOuviL2tiVxMim6HmX4YMnCorK","object":"chat.completion.chunk","created":1782321902,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_bbc23ca3d7","choices":[{"index":0,"delta":`
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: %s%s,\"logprobs\":null,\"finish_reason\":null}],\"usage\":null,\"obfuscation\":\"TuWnytCa\"}\n\n", head, delta(i))
	}
	fmt.Fprintf(&b, "data: %s{},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":null}\n\n", head)
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":2,"total_tokens":22}}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

func benchStream(b *testing.B, n int, delta func(i int) string, wantType llm.EventType) {
	body := recordedStream(n, delta)
	c := llm.NewClient(llm.ClientOptions{HTTPClient: &http.Client{Transport: memTransport{body}}, MaxRetries: -1})
	req := llm.Request{Model: llm.Model{ID: "m", Provider: "p", BaseURL: "http://mem/v1"}, Messages: []llm.Message{llm.UserText("hi", 1)}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		events := 0
		msg := c.Stream(context.Background(), req, func(e llm.Event) {
			if e.Type == wantType {
				events++
			}
		})
		if msg.ErrorMessage != "" || events != n {
			b.Fatalf("error %q, %d events", msg.ErrorMessage, events)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/chunk")
}

// BenchmarkStreamPerChunk is the per-chunk cost from SSE bytes to the
// emitted llm.Event (request building and HTTP setup amortised over 1000
// chunks). Target: under 20 µs per chunk.
func BenchmarkStreamPerChunk(b *testing.B) {
	words := strings.Fields("the quick brown fox jumps over the lazy dog and keeps on running")
	b.Run("text", func(b *testing.B) {
		benchStream(b, 1000, func(i int) string { return fmt.Sprintf(`{"content":" %s"}`, words[i%len(words)]) }, llm.EventTextDelta)
	})
	b.Run("reasoning", func(b *testing.B) {
		benchStream(b, 1000, func(i int) string {
			return fmt.Sprintf(`{"content":null,"reasoning_content":" %s"}`, words[i%len(words)])
		}, llm.EventThinkingDelta)
	})
	b.Run("toolcall", func(b *testing.B) {
		benchStream(b, 1000, func(i int) string {
			if i == 0 {
				return `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write","arguments":"{\"content\":\""}}]}`
			}
			return fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":"%s "}}]}`, words[i%len(words)])
		}, llm.EventToolCallDelta)
	})
}

// BenchmarkStreamLoopback is the same path through a real loopback HTTP
// server (the fake), for comparison.
func BenchmarkStreamLoopback(b *testing.B) {
	text := strings.Repeat("word ", 4000) // 1000 chunks of four words
	s := llmtest.NewServer(b, llmtest.Response{Repeat: true, Text: text})
	c := llm.NewClient(llm.ClientOptions{MaxRetries: -1})
	req := llm.Request{Model: llm.Model{ID: "m", Provider: "fake", BaseURL: s.BaseURL()}, Messages: []llm.Message{llm.UserText("hi", 1)}}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if msg := c.Stream(context.Background(), req, nil); msg.ErrorMessage != "" || len(msg.Text()) != len(text) {
			b.Fatalf("error %q", msg.ErrorMessage)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*1000), "ns/chunk")
}
