package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// post sends a chat request and returns the response.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE returns the data payloads of a stream and the read error, if any.
func readSSE(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out, sc.Err()
}

type gotStream struct {
	text, thinking string
	calls          map[int]*ToolCall
	finish         string
	usage          *wireUsage
	done           bool
}

func decodeStream(t *testing.T, datas []string) gotStream {
	t.Helper()
	g := gotStream{calls: map[int]*ToolCall{}}
	for _, d := range datas {
		if d == "[DONE]" {
			g.done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %q: %v", d, err)
		}
		if c.Usage != nil {
			g.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				g.text += *ch.Delta.Content
			}
			if ch.Delta.ReasoningContent != nil {
				g.thinking += *ch.Delta.ReasoningContent
			}
			for _, tc := range ch.Delta.ToolCalls {
				cur := g.calls[tc.Index]
				if cur == nil {
					cur = &ToolCall{}
					g.calls[tc.Index] = cur
				}
				if tc.ID != "" {
					cur.ID = tc.ID
				}
				if tc.Function.Name != "" {
					cur.Name = tc.Function.Name
				}
				cur.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				g.finish = *ch.FinishReason
			}
		}
	}
	return g
}

func TestStreamsScriptedContent(t *testing.T) {
	calls := []ToolCall{
		{ID: "call_1", Name: "read", Arguments: `{"path":"a.go"}`},
		{ID: "call_2", Name: "bash", Arguments: `{"command":"ls -la && echo ünïcode"}`},
	}
	tests := []struct {
		name   string
		resp   Response
		finish string
		chunks int // data chunks expected (without [DONE]); 0 = don't check
	}{
		{name: "text", resp: Response{Text: "one two three four five six seven eight nine"}, finish: "stop", chunks: 1 + 3 + 2},
		{name: "text chunk size", resp: Response{Text: "héllo wörld", ChunkSize: 2}, finish: "stop", chunks: 1 + 6 + 2},
		{name: "thinking then text", resp: Response{Thinking: "let me think", Text: "answer"}, finish: "stop"},
		{name: "parallel tool calls", resp: Response{Text: "calling", ToolCalls: calls}, finish: "tool_calls"},
		{name: "finish override", resp: Response{Text: "cut", FinishReason: "length"}, finish: "length"},
		{name: "usage given", resp: Response{Text: "x", Usage: &Usage{Prompt: 100, Completion: 7, Cached: 40}}, finish: "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewServer(t, tt.resp)
			resp := post(t, s.URL, `{"model":"m1","stream":true,"messages":[]}`)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("content type %q", ct)
			}
			datas, err := readSSE(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			g := decodeStream(t, datas)
			if g.text != tt.resp.Text || g.thinking != tt.resp.Thinking || g.finish != tt.finish || !g.done {
				t.Fatalf("got text %q thinking %q finish %q done %v", g.text, g.thinking, g.finish, g.done)
			}
			if len(g.calls) != len(tt.resp.ToolCalls) {
				t.Fatalf("got %d tool calls", len(g.calls))
			}
			for i, want := range tt.resp.ToolCalls {
				if *g.calls[i] != want {
					t.Fatalf("tool call %d = %+v, want %+v", i, *g.calls[i], want)
				}
			}
			if tt.chunks > 0 && len(datas)-1 != tt.chunks {
				t.Fatalf("got %d chunks, want %d: %q", len(datas)-1, tt.chunks, datas)
			}
			if g.usage == nil {
				t.Fatal("no usage chunk")
			}
			if tt.resp.Usage != nil {
				u := tt.resp.Usage
				if g.usage.PromptTokens != u.Prompt || g.usage.CompletionTokens != u.Completion || g.usage.PromptTokensDetails.CachedTokens != u.Cached {
					t.Fatalf("usage %+v, want %+v", g.usage, u)
				}
			} else if g.usage.PromptTokens < 1 || g.usage.CompletionTokens < 1 {
				t.Fatalf("default usage %+v", g.usage)
			}
		})
	}
}

func TestMatchRepeatAndExhaustion(t *testing.T) {
	s := NewServer(t,
		Response{Match: "weather", Text: "sunny"},
		Response{Text: "first"},
		Response{Match: "ping", Repeat: true, Text: "pong"},
	)
	ask := func(body string) (int, string) {
		resp := post(t, s.URL, body)
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		datas, err := readSSE(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, decodeStream(t, datas).text
	}
	steps := []struct {
		body   string
		status int
		want   string
	}{
		{`{"stream":true,"q":"ping"}`, 200, "first"}, // first unconsumed match in order wins
		{`{"stream":true,"q":"ping"}`, 200, "pong"},
		{`{"stream":true,"q":"ping"}`, 200, "pong"}, // repeat is never consumed
		{`{"stream":true,"q":"weather?"}`, 200, "sunny"},
		{`{"stream":true,"q":"other"}`, 500, ExhaustedMessage},
	}
	for i, st := range steps {
		status, got := ask(st.body)
		if status != st.status || !strings.Contains(got, st.want) {
			t.Fatalf("step %d: got %d %q, want %d %q", i, status, got, st.status, st.want)
		}
	}
	if n := len(s.Requests()); n != len(steps) {
		t.Fatalf("recorded %d requests", n)
	}
	if string(s.Requests()[3]) != steps[3].body {
		t.Fatalf("request 3 = %s", s.Requests()[3])
	}
}

func TestErrorStatusAndRetryHeaders(t *testing.T) {
	s := NewServer(t, Response{Status: 429, Error: "slow down", RetryAfterMs: 1500})
	resp := post(t, s.URL, `{"stream":true}`)
	if resp.StatusCode != 429 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if resp.Header.Get("retry-after-ms") != "1500" || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("headers %v", resp.Header)
	}
	var body struct {
		Error struct{ Message, Type string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Message != "slow down" || body.Error.Type != "rate_limit_error" {
		t.Fatalf("body %+v", body)
	}
}

func TestDropAfterCutsTheConnection(t *testing.T) {
	s := NewServer(t, Response{Text: "a b c d e f g h i j k l", ChunkSize: 2, DropAfter: 3})
	resp := post(t, s.URL, `{"stream":true}`)
	datas, err := readSSE(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error = %v, want unexpected EOF", err)
	}
	if len(datas) != 3 {
		t.Fatalf("got %d chunks before the drop: %q", len(datas), datas)
	}
	if g := decodeStream(t, datas); g.text != "a b " || g.done {
		t.Fatalf("partial %+v", g)
	}
}

func TestMalformedChunk(t *testing.T) {
	for _, r := range []Response{{Text: "hello world", Malformed: true}, {Malformed: true}} {
		s := NewServer(t, r)
		resp := post(t, s.URL, `{"stream":true}`)
		datas, err := readSSE(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		last := datas[len(datas)-1]
		if json.Valid([]byte(last)) {
			t.Fatalf("last chunk is valid JSON: %q", last)
		}
		for _, d := range datas[:len(datas)-1] {
			if !json.Valid([]byte(d)) {
				t.Fatalf("chunk before the malformed one is broken: %q", d)
			}
		}
	}
}

func TestStallIsCutByClientCancel(t *testing.T) {
	s := NewServer(t, Response{Text: "late", StallMs: 60_000})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.BaseURL()+"/chat/completions", strings.NewReader(`{"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan error, 1)
	go func() {
		_, err := readSSE(resp.Body)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("stream ended during the stall: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if err := <-got; err == nil {
		t.Fatal("cancelled read ended without error")
	}
}

func TestHTTPScriptAndRequests(t *testing.T) {
	s := NewServer(t)
	resp, err := http.Post(s.URL+"/script", "application/json",
		strings.NewReader(`[{"text":"hi"},{"toolCalls":[{"id":"c1","name":"ls","arguments":{"path":"."}}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || s.Pending() != 2 {
		t.Fatalf("script status %d pending %d", resp.StatusCode, s.Pending())
	}
	bad, err := http.Post(s.URL+"/script", "application/json", strings.NewReader(`[{"text":`))
	if err != nil {
		t.Fatal(err)
	}
	bad.Body.Close()
	if bad.StatusCode != 400 || s.Pending() != 2 {
		t.Fatalf("bad script status %d pending %d", bad.StatusCode, s.Pending())
	}
	for _, want := range []string{"hi", ""} {
		datas, err := readSSE(post(t, s.URL, `{"stream":true,"n":1}`).Body)
		if err != nil {
			t.Fatal(err)
		}
		g := decodeStream(t, datas)
		if g.text != want {
			t.Fatalf("text %q, want %q", g.text, want)
		}
		if want == "" && (g.calls[0] == nil || g.calls[0].Arguments != `{"path":"."}`) {
			t.Fatalf("tool call %+v", g.calls[0])
		}
	}
	r, err := http.Get(s.URL + "/requests")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var reqs []map[string]any
	if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1]["n"] != 1.0 {
		t.Fatalf("requests %v", reqs)
	}
}

func TestNonStreamingAnswer(t *testing.T) {
	s := NewServer(t, Response{Text: "plain", Usage: &Usage{Prompt: 3, Completion: 1}})
	resp := post(t, s.URL, `{"model":"m"}`)
	var got struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage wireUsage
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Choices[0].Message.Content != "plain" || got.Choices[0].FinishReason != "stop" || got.Usage.TotalTokens != 4 {
		t.Fatalf("got %+v", got)
	}
}

func TestWriteModelsJSON(t *testing.T) {
	dir := t.TempDir()
	path := WriteModelsJSON(dir, "http://x/v1", ModelSpec{ID: "small", ContextWindow: 4000, Reasoning: true}, ModelSpec{})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Providers map[string]struct {
			BaseURL string `json:"baseUrl"`
			API     string `json:"api"`
			APIKey  string `json:"apiKey"`
			Models  []map[string]any
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Providers[ProviderName]
	if p.BaseURL != "http://x/v1" || p.API != "openai-completions" || p.APIKey != "fake-key" {
		t.Fatalf("provider %+v", p)
	}
	ms := p.Models
	want := []map[string]any{
		{"id": "small", "contextWindow": 4000.0, "maxTokens": 16384.0, "reasoning": true, "input": []any{"text"}},
		{"id": "fake-model", "contextWindow": 128000.0, "maxTokens": 16384.0, "reasoning": false, "input": []any{"text"}},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("models %v", ms)
	}
	if err := WriteModelsJSONFile(dir+"/missing/dir/models.json", "u"); err == nil {
		t.Fatal("writing into a missing directory did not fail")
	}
}

func TestParseScript(t *testing.T) {
	rs, err := ParseScript([]byte(`{"text":"one","status":0,"dropAfter":2,"stallMs":5,"chunkDelayMs":1,"chunkSize":3,"finishReason":"length","usage":{"prompt":1,"completion":2,"cached":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Response{Text: "one", DropAfter: 2, StallMs: 5, ChunkDelayMs: 1, ChunkSize: 3, FinishReason: "length", Usage: &Usage{1, 2, 0}}
	if !reflect.DeepEqual(rs, []Response{want}) {
		t.Fatalf("got %+v", rs)
	}
	if _, err := ParseScript([]byte(`[{"toolCalls":[{"arguments":{"a":}}]}]`)); err == nil {
		t.Fatal("broken arguments accepted")
	}
	if _, err := ParseScript(bytes.Repeat([]byte("x"), 3)); err == nil {
		t.Fatal("garbage accepted")
	}
}

// A request refused for its context length is in Requests but not in the
// log; the next request must still be answered (it used to index the log
// by the count of requests and panic in the handler).
func TestOverWindowRequestThenAnAnswer(t *testing.T) {
	s := NewServer(t, Response{Text: "fits"})
	s.SetTokens(func(body []byte) int { return len(body) / 3 }, 20)
	big := `{"stream":false,"messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
	if resp := post(t, s.URL, big); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("over the window: status %d", resp.StatusCode)
	}
	resp := post(t, s.URL, `{"stream":false}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "fits") {
		t.Fatalf("answer %s", b)
	}
	if len(s.Requests()) != 2 || len(s.Log()) != 1 || s.Log()[0].End == 0 {
		t.Fatalf("requests %d, log %+v", len(s.Requests()), s.Log())
	}
}
