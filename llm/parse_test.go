package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// feed runs chunks through a fresh parser and returns it with its events.
func feed(t *testing.T, chunks ...string) (*parser, []Event, error) {
	t.Helper()
	msg := &Message{Role: RoleAssistant}
	var events []Event
	p := newParser(msg, func(e Event) { events = append(events, e) }, Cost{})
	for _, c := range chunks {
		if err := p.handle([]byte(c)); err != nil {
			return p, events, err
		}
	}
	p.finishToolCalls()
	return p, events, nil
}

func TestToolCallAssembly(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []ContentBlock
	}{
		{
			name: "no index: by id, then continuation goes to the last call",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
			},
			want: []ContentBlock{toolCall("a", "f", `{"x":1}`), toolCall("b", "g", `{}`)},
		},
		{
			name: "index 0 reused with a new id starts a new call",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":2}"}}]}}]}`,
			},
			want: []ContentBlock{toolCall("a", "f", `{}`), toolCall("b", "g", `{"y":2}`)},
		},
		{
			name: "interleaved parallel deltas by index; id and name from the first chunk that has them",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"b\""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":":1}"}},{"index":0,"id":"a","function":{"name":"renamed"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":0}"}}]}}]}`,
			},
			want: []ContentBlock{toolCall("b", "g", `{"b":1}`), toolCall("a", "f", `{"a":0}`)},
		},
		{
			name: "double-encoded, truncated and broken arguments",
			chunks: []string{
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"\"{\\\"p\\\":1}\""}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"f","arguments":"{\"p\":\"unfinished \\\\"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":2,"id":"c","function":{"name":"f","arguments":"not json"}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":3,"id":"d","function":{"name":"f","arguments":"{\"list\":[1,2,"}}]}}]}`,
			},
			want: []ContentBlock{toolCall("a", "f", `{"p":1}`), toolCall("b", "f", `{"p":"unfinished \\"}`), toolCall("c", "f", `{}`), toolCall("d", "f", `{"list":[1,2]}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := feed(t, tt.chunks...)
			if err != nil {
				t.Fatal(err)
			}
			got := p.msg.Content
			if len(got) != len(tt.want) {
				t.Fatalf("got %d blocks: %+v", len(got), got)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.ID != w.ID || g.Name != w.Name || string(g.Arguments) != string(w.Arguments) {
					t.Errorf("block %d = %s %s %s, want %s %s %s", i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments)
				}
			}
			if sr, _ := p.stopReason(); sr != StopToolUse {
				t.Errorf("stop reason %q", sr)
			}
		})
	}
}

func TestUsageConversion(t *testing.T) {
	tests := []struct {
		chunk string
		want  Usage
	}{
		{`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110,"prompt_tokens_details":{"cached_tokens":60}}}`,
			Usage{Input: 40, Output: 10, CacheRead: 60, TotalTokens: 110}},
		{`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"prompt_cache_hit_tokens":30,"prompt_cache_miss_tokens":70}}`,
			Usage{Input: 70, Output: 10, CacheRead: 30, TotalTokens: 110}},
		{`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":50,"cache_write_tokens":20}}}`,
			Usage{Input: 50, Output: 10, CacheRead: 30, CacheWrite: 20, TotalTokens: 110}},
		{`{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":7,"completion_tokens":3}}]}`,
			Usage{Input: 7, Output: 3, TotalTokens: 10}},
		{`{"choices":[],"usage":{"prompt_tokens":-5,"completion_tokens":-1,"prompt_tokens_details":{"cached_tokens":9}}}`,
			Usage{CacheRead: 9, TotalTokens: 9}},
	}
	for _, tt := range tests {
		p, _, err := feed(t, tt.chunk)
		if err != nil {
			t.Fatal(err)
		}
		if p.msg.Usage != tt.want {
			t.Errorf("%s\n got %+v\nwant %+v", tt.chunk, p.msg.Usage, tt.want)
		}
	}
}

func TestChunkErrorsAndTolerance(t *testing.T) {
	_, _, err := feed(t, `{"choices":[{"delta":{"content":"a"}}]}`, `{"error":{"message":"upstream died","code":502}}`)
	var pe *providerError
	if !errors.As(err, &pe) || pe.Message != "upstream died" || pe.Code != 502 {
		t.Fatalf("provider error = %v", err)
	}
	if f := streamFailure(err, 0); !f.retryable {
		t.Fatal("a 502 in the stream is not retryable")
	}
	_, _, err = feed(t, `{"choices":[{"delta":{"content":`)
	if !errors.Is(err, errMalformed) {
		t.Fatalf("malformed = %v", err)
	}
	// Unexpected types in fields are skipped, the rest is read.
	p, _, err := feed(t, `{"choices":[{"delta":{"reasoning":{"effort":"x"},"content":"ok"},"finish_reason":"length"}]}`, "[DONE]")
	if err != nil || p.msg.Text() != "ok" || p.finish != "length" || !p.done {
		t.Fatalf("tolerant parse: %v %+v", err, p.msg)
	}
	// Empty strings and null fields make no blocks and no events.
	p, events, _ := feed(t, `{"choices":[{"delta":{"role":"assistant","content":"","reasoning_content":null,"tool_calls":null}}]}`, `{"choices":[]}`, `{}`)
	if len(p.msg.Content) != 0 || len(events) != 0 {
		t.Fatalf("blocks %+v events %+v", p.msg.Content, events)
	}
}

func TestReasoningFieldsAndStopReasons(t *testing.T) {
	p, _, _ := feed(t,
		`{"choices":[{"delta":{"reasoning":"a","reasoning_content":""}}]}`,
		`{"choices":[{"delta":{"reasoning_text":"b"}}]}`,
		`{"choices":[{"delta":{"content":"t"},"finish_reason":"network_error"}]}`)
	if b := p.msg.Content[0]; b.Type != BlockThinking || b.Thinking != "ab" || b.ThinkingSignature != "reasoning" {
		t.Fatalf("thinking block %+v", b)
	}
	if sr, m := p.stopReason(); sr != StopError || m != "Provider finish_reason: network_error" {
		t.Fatalf("stop %q %q", sr, m)
	}
	for reason, want := range map[string]StopReason{"stop": StopStop, "end": StopStop, "": StopStop, "length": StopLength, "tool_calls": StopToolUse, "function_call": StopToolUse, "content_filter": StopError} {
		p := &parser{finish: reason}
		if sr, _ := p.stopReason(); sr != want {
			t.Errorf("%q → %q, want %q", reason, sr, want)
		}
	}
}

func TestCloseJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"b`:         `{"a":"b"}`,
		`{"a":[1,{"b":2`:  `{"a":[1,{"b":2}]}`,
		`{"a":`:           `{"a":null}`,
		`{"a":1,`:         `{"a":1}`,
		`{"a":"x\`:        `{"a":"x\\"}`,
		`{"a":"}{[","b":`: `{"a":"}{[","b":null}`,
	} {
		if got := closeJSON(in); got != want {
			t.Errorf("closeJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseChunk feeds arbitrary data payloads: the parser must never
// panic, every tool call must end with a JSON object as arguments and the
// message must serialise.
func FuzzParseChunk(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"index":0,"delta":{"content":"hi","reasoning_content":"r"},"finish_reason":null}],"usage":null}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}`,
		`{"error":{"message":"x","code":500}}`, `{"error":"plain"}`, `[DONE]`, `{"choices":[{"message":{"content":"whole"}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":-1,"id":"","function":{"arguments":"\"{}\""}}]}}]}`,
		``, `null`, `{"choices":"x"}`, `{"choices":[{"delta":{"content":`,
	} {
		f.Add([]byte(s), []byte(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}`))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		msg := &Message{Role: RoleAssistant}
		p := newParser(msg, func(Event) {}, Cost{Input: 1})
		_ = p.handle(a)
		_ = p.handle(b)
		p.finishToolCalls()
		_, _ = p.stopReason()
		for _, c := range msg.ToolCalls() {
			var obj map[string]any
			if err := json.Unmarshal(c.Arguments, &obj); err != nil || !strings.HasPrefix(string(c.Arguments), "{") {
				t.Fatalf("arguments %q are not an object: %v", c.Arguments, err)
			}
		}
		if _, err := json.Marshal(msg); err != nil {
			t.Fatalf("message does not serialise: %v", err)
		}
	})
}

// FuzzFinalArguments: whatever text a model streams as arguments, the
// result is a JSON object.
func FuzzFinalArguments(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"b`, `"{\"x\":1}"`, `[1,2`, `{"a":`, `{`, `}`, `\`, `{"a":"\u12`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := finalArguments(s)
		if !isObject(string(out)) {
			t.Fatalf("finalArguments(%q) = %q", s, out)
		}
	})
}
