package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// fastClient retries quickly so the tests stay fast.
func fastClient(opts llm.ClientOptions) *llm.Client {
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay = time.Millisecond
	}
	return llm.NewClient(opts)
}

func fakeModel(s *llmtest.Server) llm.Model {
	return llm.Model{ID: "fake-model", Provider: "fake", BaseURL: s.BaseURL(), APIKey: "k", MaxTokens: 1000}
}

func userRequest(m llm.Model, text string) llm.Request {
	return llm.Request{Model: m, Messages: []llm.Message{llm.UserText(text, 1)}}
}

// recorder collects events; short renders them for order assertions.
type recorder struct {
	mu     sync.Mutex
	events []llm.Event
}

func (r *recorder) emit(e llm.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Partial = nil
	r.events = append(r.events, e)
}

// kinds returns the event sequence with retries and their attempts
// spelled out and runs of identical deltas collapsed.
func (r *recorder) kinds() []string {
	var out []string
	for _, e := range r.events {
		k := string(e.Type)
		switch e.Type {
		case llm.EventRetryStart:
			k = fmt.Sprintf("retry_start#%d", e.Attempt)
		case llm.EventRetryEnd:
			k = fmt.Sprintf("retry_end#%d:%v", e.Attempt, e.Success)
		case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
			k = fmt.Sprintf("%s@%d", e.Type, e.ContentIndex)
		}
		if len(out) > 0 && out[len(out)-1] == k {
			continue
		}
		out = append(out, k)
	}
	return out
}

func TestStreamsTextThinkingParallelToolsAndUsage(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Response{
		Thinking: "I should look at both files.",
		Text:     "Reading them now.",
		ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "read", Arguments: `{"path":"a.go"}`},
			{ID: "call_b", Name: "read", Arguments: `{"path":"b/ü.go","limit":20}`},
		},
		Usage:     &llmtest.Usage{Prompt: 120, Completion: 30, Cached: 100},
		ChunkSize: 5,
	})
	var rec recorder
	m := fakeModel(s)
	m.Cost = llm.Cost{Input: 1, Output: 2, CacheRead: 0.5}
	msg := fastClient(llm.ClientOptions{}).Stream(context.Background(), userRequest(m, "read a and b"), rec.emit)
	if msg.StopReason != llm.StopToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stop %q error %q", msg.StopReason, msg.ErrorMessage)
	}
	want := []llm.ContentBlock{
		{Type: llm.BlockThinking, Thinking: "I should look at both files.", ThinkingSignature: "reasoning_content"},
		{Type: llm.BlockText, Text: "Reading them now."},
		{Type: llm.BlockToolCall, ID: "call_a", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		{Type: llm.BlockToolCall, ID: "call_b", Name: "read", Arguments: json.RawMessage(`{"path":"b/ü.go","limit":20}`)},
	}
	if !reflect.DeepEqual(msg.Content, want) {
		t.Fatalf("content\n got %+v\nwant %+v", msg.Content, want)
	}
	wantUsage := llm.Usage{Input: 20, Output: 30, CacheRead: 100, TotalTokens: 150,
		Cost: llm.Cost{Input: 20e-6, Output: 60e-6, CacheRead: 50e-6, Total: 130e-6}}
	if d := msg.Usage.Cost.Total - wantUsage.Cost.Total; d > 1e-12 || d < -1e-12 {
		t.Fatalf("cost %+v", msg.Usage.Cost)
	}
	msg.Usage.Cost = wantUsage.Cost
	if msg.Usage != wantUsage {
		t.Fatalf("usage %+v, want %+v", msg.Usage, wantUsage)
	}
	if msg.Role != llm.RoleAssistant || msg.API != "openai-completions" || msg.Provider != "fake" || msg.Model != "fake-model" || msg.Timestamp == 0 {
		t.Fatalf("header fields %+v", msg)
	}
	wantKinds := []string{"start", "thinking_delta@0", "text_delta@1", "toolcall_delta@2", "toolcall_delta@3"}
	if got := rec.kinds(); !reflect.DeepEqual(got, wantKinds) {
		t.Fatalf("events %v, want %v", got, wantKinds)
	}
}

func TestRetriesAreEventsAndSucceed(t *testing.T) {
	s := llmtest.NewServer(t,
		llmtest.Response{Status: 429, Error: "rate limited", RetryAfterMs: 5},
		llmtest.Response{Status: 503, Error: "overloaded"},
		llmtest.Response{Text: "x", DropAfter: 1}, // opens, drops before any content
		llmtest.Response{Text: "finally"},
	)
	var rec recorder
	msg := fastClient(llm.ClientOptions{MaxRetries: 5}).Stream(context.Background(), userRequest(fakeModel(s), "hi"), rec.emit)
	if msg.StopReason != llm.StopStop || msg.Text() != "finally" {
		t.Fatalf("got %q %q %q", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	want := []string{
		"retry_start#1", "retry_end#1:false", "retry_start#2", "retry_end#2:true", "start",
		"retry_start#3", "retry_end#3:true", "text_delta@0",
	}
	if got := rec.kinds(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	first := rec.events[0]
	if first.DelayMs != 5 || first.MaxAttempts != 5 || !strings.Contains(first.Error, "429") || !strings.Contains(first.Error, "rate limited") {
		t.Fatalf("first retry_start %+v", first)
	}
	if e := rec.events[1]; !strings.Contains(e.Error, "503") || !strings.Contains(e.Error, "overloaded") {
		t.Fatalf("retry_end error %q", e.Error)
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("%d requests", n)
	}
}

func TestFailuresBecomeErrorMessages(t *testing.T) {
	tests := []struct {
		name      string
		script    []llmtest.Response
		opts      llm.ClientOptions
		requests  int
		text      string // partial content kept
		errorHas  []string
		retryEvts int
	}{
		{
			name:     "gives up after retries",
			script:   []llmtest.Response{{Repeat: true, Status: 500, Error: "boom"}},
			requests: 4, retryEvts: 6,
			errorHas: []string{"fake/fake-model", "HTTP 500", "boom", "gave up after 3 retries"},
		},
		{
			name:     "client error is not retried",
			script:   []llmtest.Response{{Status: 400, Error: "bad tool schema"}, {Text: "unused"}},
			requests: 1,
			errorHas: []string{"HTTP 400 Bad Request: bad tool schema"},
		},
		{
			name:     "exhausted script",
			script:   nil,
			opts:     llm.ClientOptions{MaxRetries: -1},
			requests: 1,
			errorHas: []string{"HTTP 500", llmtest.ExhaustedMessage},
		},
		{
			name:     "drop after content keeps the partial text",
			script:   []llmtest.Response{{Text: "one two three four five six seven eight", DropAfter: 3}, {Text: "unused"}},
			requests: 1, text: "one two three four five six seven eight",
			errorHas: []string{"stream interrupted"},
		},
		{
			name:     "malformed chunk",
			script:   []llmtest.Response{{Text: "good start and then", Malformed: true}, {Text: "unused"}},
			requests: 1, text: "good start and then",
			errorHas: []string{"malformed chunk"},
		},
		{
			name:     "retry-after beyond the limit",
			script:   []llmtest.Response{{Status: 429, RetryAfterMs: 120_000}, {Text: "unused"}},
			requests: 1,
			errorHas: []string{"HTTP 429", "asks to wait 2m0s"},
		},
		{
			name:     "content filter",
			script:   []llmtest.Response{{Text: "partial", FinishReason: "content_filter"}},
			requests: 1, text: "partial",
			errorHas: []string{"Provider finish_reason: content_filter"},
		},
		{
			name:     "idle after content",
			script:   []llmtest.Response{{Text: "a b c d e f g h", StallAfter: 2, StallMs: 10_000}, {Text: "unused"}},
			opts:     llm.ClientOptions{IdleTimeout: 100 * time.Millisecond},
			requests: 1, text: "a b c d ",
			errorHas: []string{"idle timeout"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t, tt.script...)
			var rec recorder
			msg := fastClient(tt.opts).Stream(context.Background(), userRequest(fakeModel(s), "hi"), rec.emit)
			if msg.StopReason != llm.StopError {
				t.Fatalf("stop reason %q (%q)", msg.StopReason, msg.ErrorMessage)
			}
			for _, want := range tt.errorHas {
				if !strings.Contains(msg.ErrorMessage, want) {
					t.Errorf("error %q lacks %q", msg.ErrorMessage, want)
				}
			}
			if got := msg.Text(); got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
			if n := len(s.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			retries := 0
			for _, e := range rec.events {
				if e.Type == llm.EventRetryStart || e.Type == llm.EventRetryEnd {
					retries++
				}
			}
			if retries != tt.retryEvts {
				t.Errorf("%d retry events, want %d: %v", retries, tt.retryEvts, rec.kinds())
			}
		})
	}
}

func TestIdleBeforeContentIsRetried(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Response{Text: "never", StallMs: 10_000}, llmtest.Response{Text: "second"})
	var rec recorder
	msg := fastClient(llm.ClientOptions{IdleTimeout: 100 * time.Millisecond}).Stream(context.Background(), userRequest(fakeModel(s), "hi"), rec.emit)
	if msg.Text() != "second" || msg.StopReason != llm.StopStop {
		t.Fatalf("got %q %q %q", msg.Text(), msg.StopReason, msg.ErrorMessage)
	}
	want := []string{"start", "retry_start#1", "retry_end#1:true", "text_delta@0"}
	if got := rec.kinds(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if !strings.Contains(rec.events[1].Error, "idle timeout") {
		t.Fatalf("retry error %q", rec.events[1].Error)
	}
}

func TestAbortKeepsPartialContent(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Response{
		Text:         "alpha beta gamma delta epsilon zeta eta theta",
		ToolCalls:    []llmtest.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"sleep 100"}`}},
		ChunkDelayMs: 30,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deltas := 0
	msg := fastClient(llm.ClientOptions{}).Stream(ctx, userRequest(fakeModel(s), "hi"), func(e llm.Event) {
		if e.Type == llm.EventTextDelta {
			deltas++
			if deltas == 1 {
				cancel()
			}
		}
	})
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != "Request was aborted" {
		t.Fatalf("stop %q error %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.Text() != "alpha beta gamma delta " || len(msg.ToolCalls()) != 0 {
		t.Fatalf("partial %+v", msg.Content)
	}
}

func TestAbortDuringBackoff(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Response{Status: 500})
	ctx, cancel := context.WithCancel(context.Background())
	var rec recorder
	msg := llm.NewClient(llm.ClientOptions{RetryBaseDelay: time.Hour}).Stream(ctx, userRequest(fakeModel(s), "hi"), func(e llm.Event) {
		rec.emit(e)
		if e.Type == llm.EventRetryStart {
			cancel()
		}
	})
	if msg.StopReason != llm.StopAborted {
		t.Fatalf("stop %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if got, want := rec.kinds(), []string{"retry_start#1", "retry_end#1:false"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if rec.events[0].DelayMs != 60_000 { // capped by the default MaxRetryDelay
		t.Fatalf("delay %d", rec.events[0].DelayMs)
	}
}

func TestConnectionRefusedIsRetriedThenReported(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	var rec recorder
	m := llm.Model{ID: "x", Provider: "p", BaseURL: url + "/v1"}
	msg := fastClient(llm.ClientOptions{MaxRetries: 2}).Stream(context.Background(), userRequest(m, "hi"), rec.emit)
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "request failed") || !strings.Contains(msg.ErrorMessage, "gave up after 2 retries") {
		t.Fatalf("got %q %q", msg.StopReason, msg.ErrorMessage)
	}
	if got, want := rec.kinds(), []string{"retry_start#1", "retry_end#1:false", "retry_start#2", "retry_end#2:false"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v", got)
	}
}

func TestRequestHeadersAndNonStreamingAnswer(t *testing.T) {
	var got http.Header
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"whole","reasoning_content":"hm","tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_ORG_ID", "org-leak") // must not reach other providers
	m := llm.Model{ID: "m", Provider: "p", BaseURL: srv.URL, APIKey: "sekret", Headers: map[string]string{"X-Extra": "1"}}
	msg := fastClient(llm.ClientOptions{}).Stream(context.Background(), userRequest(m, "hi"), nil)
	if got.Get("Authorization") != "Bearer sekret" || got.Get("X-Extra") != "1" || got.Get("OpenAI-Organization") != "" {
		t.Fatalf("headers %v", got)
	}
	if body["stream"] != true || body["model"] != "m" {
		t.Fatalf("body %v", body)
	}
	if msg.Text() != "whole" || msg.StopReason != llm.StopToolUse || len(msg.ToolCalls()) != 1 || msg.Usage.TotalTokens != 7 {
		t.Fatalf("message %+v", msg)
	}
}

func TestUnusableModels(t *testing.T) {
	for _, m := range []llm.Model{
		{ID: "c", Provider: "anthropic", API: "anthropic-messages", BaseURL: "http://x"},
		{ID: "n", Provider: "nourl"},
		{ID: "j", Provider: "p", BaseURL: "http://x", Compat: json.RawMessage(`{"supportsStore":"yes"}`)},
	} {
		msg := llm.NewClient(llm.ClientOptions{}).Stream(context.Background(), userRequest(m, "hi"), nil)
		if msg.StopReason != llm.StopError || msg.ErrorMessage == "" || msg.Role != llm.RoleAssistant {
			t.Fatalf("%s: %+v", m.Ref(), msg)
		}
	}
}

func TestKeepAliveCommentsHoldTheIdleTimer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for range 10 { // 300 ms of keep-alives, three times the idle timeout
			fmt.Fprint(w, ": OPENROUTER PROCESSING\n\n")
			f.Flush()
			time.Sleep(30 * time.Millisecond)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"thought long\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	var rec recorder
	m := llm.Model{ID: "m", Provider: "p", BaseURL: srv.URL}
	msg := fastClient(llm.ClientOptions{IdleTimeout: 100 * time.Millisecond}).Stream(context.Background(), userRequest(m, "hi"), rec.emit)
	if msg.Text() != "thought long" || msg.StopReason != llm.StopStop {
		t.Fatalf("got %q %q %q", msg.Text(), msg.StopReason, msg.ErrorMessage)
	}
	if got := rec.kinds(); !reflect.DeepEqual(got, []string{"start", "text_delta@0"}) {
		t.Fatalf("events %v", got)
	}
}
