package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// body builds the request body for req and decodes it generically.
func body(t *testing.T, req Request) map[string]any {
	t.Helper()
	c, err := resolveCompat(req.Model)
	if err != nil {
		t.Fatal(err)
	}
	p, err := buildParams(req, c)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad expectation %s: %v", s, err)
	}
	return v
}

func assistant(model string, stop StopReason, blocks ...ContentBlock) Message {
	return Message{Role: RoleAssistant, API: "openai-completions", Provider: "p", Model: model, StopReason: stop, Content: blocks}
}

func toolCall(id, name, args string) ContentBlock {
	return ContentBlock{Type: BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func toolResult(id, text string, extra ...ContentBlock) Message {
	return Message{Role: RoleToolResult, ToolCallID: id, ToolName: "read", Content: append([]ContentBlock{TextBlock(text)}, extra...)}
}

func TestConvertMessages(t *testing.T) {
	exit2 := 2
	img := ContentBlock{Type: BlockImage, Data: "QUJD", MimeType: "image/png"}
	base := Model{ID: "m", Provider: "p", BaseURL: "http://localhost/v1", Input: []string{"text", "image"}}
	textOnly := base
	textOnly.Input = nil
	tests := []struct {
		name  string
		model Model
		sys   string
		msgs  []Message
		want  string
	}{
		{
			name: "system, user text and images",
			sys:  "be brief", model: base,
			msgs: []Message{UserText("hi", 1), {Role: RoleUser, Content: []ContentBlock{TextBlock("look"), img}}},
			want: `[{"role":"system","content":"be brief"},{"role":"user","content":"hi"},
				{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,QUJD"}}]}]`,
		},
		{
			name: "images become placeholders for text-only models", model: textOnly,
			msgs: []Message{{Role: RoleUser, Content: []ContentBlock{img, img, TextBlock("what is it")}}},
			want: `[{"role":"user","content":[{"type":"text","text":"(image omitted: model does not support images)"},{"type":"text","text":"what is it"}]}]`,
		},
		{
			name: "agent-only roles become user messages", model: base,
			msgs: []Message{
				{Role: RoleBashExecution, Command: "make", Output: "fail", ExitCode: &exit2, Truncated: true, FullOutputPath: "/tmp/o"},
				{Role: RoleBashExecution, Command: "secret", ExcludeFromContext: true},
				{Role: RoleBashExecution, Command: "true", Cancelled: true},
				{Role: RoleCustom, CustomType: "x", Content: []ContentBlock{TextBlock("note")}},
				{Role: RoleBranchSummary, Summary: "went left"},
				{Role: RoleCompactionSummary, Summary: "did things"},
			},
			want: `[{"role":"user","content":"Ran ` + "`make`" + `\n` + "```" + `\nfail\n` + "```" + `\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]"},
				{"role":"user","content":"Ran ` + "`true`" + `\n(no output)\n\n(command cancelled)"},
				{"role":"user","content":"note"},
				{"role":"user","content":"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nwent left</summary>"},
				{"role":"user","content":"The conversation history before this point was compacted into the following summary:\n\n<summary>\ndid things\n</summary>"}]`,
		},
		{
			name: "tool loop, same model thinking goes back in its field", model: base,
			msgs: []Message{
				UserText("go", 1),
				assistant("m", StopToolUse,
					ContentBlock{Type: BlockThinking, Thinking: "plan", ThinkingSignature: "reasoning_content"},
					TextBlock("  "), toolCall("c1", "read", `{"path": "a"}`), toolCall("c2", "ls", ``)),
				toolResult("c1", "A"), toolResult("c2", "", img),
			},
			want: `[{"role":"user","content":"go"},
				{"role":"assistant","content":null,"reasoning_content":"plan","tool_calls":[
					{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}},
					{"id":"c2","type":"function","function":{"name":"ls","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"c1","content":"A"},
				{"role":"tool","tool_call_id":"c2","content":"(see attached image)"},
				{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,QUJD"}}]}]`,
		},
		{
			name: "another model's thinking becomes text, long ids are normalised", model: Model{ID: "gpt", Provider: "openai", BaseURL: "https://api.openai.com/v1"},
			msgs: []Message{
				assistant("other", StopToolUse,
					ContentBlock{Type: BlockThinking, Thinking: "secret plan", ThinkingSignature: "opaque=="},
					ContentBlock{Type: BlockThinking, Redacted: true, Thinking: "x"},
					TextBlock("ok"), toolCall("call_1|fc_abcdefghijklmnopqrstuvwxyz0123456789", "read", `{}`)),
				toolResult("call_1|fc_abcdefghijklmnopqrstuvwxyz0123456789", "done"),
			},
			want: `[{"role":"assistant","content":"secret planok","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"call_1","content":"done"}]`,
		},
		{
			name: "errored and aborted turns are skipped with their results; orphans get a result", model: base,
			msgs: []Message{
				UserText("a", 1),
				assistant("m", StopAborted, TextBlock("half"), toolCall("x1", "bash", `{}`)),
				toolResult("x1", "cancelled"),
				assistant("m", StopError),
				assistant("m", StopToolUse, toolCall("y1", "read", `{}`), toolCall("y2", "read", `{}`)),
				toolResult("y2", "B"),
				toolResult("y2", "B again"),
				UserText("b", 2),
			},
			want: `[{"role":"user","content":"a"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"y1","type":"function","function":{"name":"read","arguments":"{}"}},{"id":"y2","type":"function","function":{"name":"read","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"y2","content":"B"},
				{"role":"tool","tool_call_id":"y1","content":"No result provided"},
				{"role":"user","content":"b"}]`,
		},
		{
			name: "reasoning model gets the developer role", model: Model{ID: "o", Provider: "openai", BaseURL: "https://api.openai.com/v1", Reasoning: true},
			sys:  "rules",
			want: `[{"role":"developer","content":"rules"}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := body(t, Request{Model: tt.model, SystemPrompt: tt.sys, Messages: tt.msgs})["messages"]
			if got == nil {
				got = []any{}
			}
			if want := decode(t, tt.want); !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Fatalf("messages\n got %s\nwant %s", g, tt.want)
			}
		})
	}
}

func TestConvertCompatFlags(t *testing.T) {
	msgs := []Message{
		UserText("go", 1),
		assistant("m", StopToolUse, ContentBlock{Type: BlockThinking, Thinking: "hmm", ThinkingSignature: "reasoning_content"}, TextBlock("calling"), toolCall("c1", "read", `{}`)),
		toolResult("c1", "A"),
		UserText("next", 2),
	}
	m := Model{ID: "m", Provider: "p", BaseURL: "http://h/v1", Reasoning: true,
		Compat: json.RawMessage(`{"requiresToolResultName":true,"requiresAssistantAfterToolResult":true,"requiresThinkingAsText":true,"supportsDeveloperRole":false}`)}
	got := body(t, Request{Model: m, SystemPrompt: "s", Messages: msgs})["messages"]
	want := decode(t, `[{"role":"system","content":"s"},{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"text","text":"hmm"},{"type":"text","text":"calling"}],"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"A","name":"read"},
		{"role":"assistant","content":"I have processed the tool results."},
		{"role":"user","content":"next"}]`)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		t.Fatalf("got %s", g)
	}
}

func TestRequestParameters(t *testing.T) {
	tool := Tool{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
	tests := []struct {
		name  string
		model Model
		level ThinkingLevel
		tools []Tool
		want  map[string]any // expected top-level fields other than messages; nil value = absent
	}{
		{
			name:  "openai reasoning model",
			model: Model{ID: "o4", Provider: "openai", BaseURL: "https://api.openai.com/v1", Reasoning: true, MaxTokens: 100000},
			level: ThinkingXHigh, tools: []Tool{tool},
			want: map[string]any{"model": "o4", "stream": true, "stream_options": map[string]any{"include_usage": true}, "store": false,
				"max_completion_tokens": 32000.0, "reasoning_effort": "high", "max_tokens": nil,
				"tools": decode(t, `[{"type":"function","function":{"name":"read","description":"Read a file","strict":false,
					"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`)},
		},
		{
			name:  "thinking off sends no effort; non-reasoning models never do",
			model: Model{ID: "g", Provider: "openai", BaseURL: "https://api.openai.com/v1", Reasoning: true},
			level: ThinkingOff,
			want:  map[string]any{"reasoning_effort": nil, "max_completion_tokens": nil, "tools": nil},
		},
		{
			name:  "non-reasoning model",
			model: Model{ID: "g", Provider: "openai", BaseURL: "https://api.openai.com/v1", MaxTokens: 500},
			level: ThinkingHigh,
			want:  map[string]any{"reasoning_effort": nil, "max_completion_tokens": 500.0},
		},
		{
			name:  "deepseek thinking format",
			model: Model{ID: "deepseek-reasoner", Provider: "deepseek", BaseURL: "https://api.deepseek.com", Reasoning: true},
			level: ThinkingMedium,
			want:  map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "medium", "store": nil},
		},
		{
			name:  "openrouter reasoning object and routing",
			model: Model{ID: "a/b", Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, Compat: json.RawMessage(`{"openRouterRouting":{"only":["x"]}}`)},
			level: ThinkingOff,
			want:  map[string]any{"reasoning": map[string]any{"effort": "none"}, "provider": map[string]any{"only": []any{"x"}}},
		},
		{
			name:  "compat: max_tokens, no usage, no store, no strict",
			model: Model{ID: "l", Provider: "local", BaseURL: "http://h/v1", MaxTokens: 64, Compat: json.RawMessage(`{"maxTokensField":"max_tokens","supportsUsageInStreaming":false,"supportsStore":false,"supportsStrictMode":false}`)},
			tools: []Tool{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}},
			want: map[string]any{"max_tokens": 64.0, "stream_options": nil, "store": nil,
				"tools": decode(t, `[{"type":"function","function":{"name":"t","description":"","parameters":{"type":"object"}}}]`)},
		},
		{
			name:  "qwen chat template",
			model: Model{ID: "q", Provider: "local", BaseURL: "http://h/v1", Reasoning: true, Compat: json.RawMessage(`{"thinkingFormat":"qwen-chat-template"}`)},
			level: ThinkingLow,
			want:  map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": true, "preserve_thinking": true}, "reasoning_effort": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := body(t, Request{Model: tt.model, ThinkingLevel: tt.level, Tools: tt.tools, Messages: []Message{UserText("x", 1)}})
			for k, want := range tt.want {
				v, ok := got[k]
				if want == nil {
					if ok {
						t.Errorf("%s = %v, want absent", k, v)
					}
					continue
				}
				if !reflect.DeepEqual(v, want) {
					t.Errorf("%s = %#v, want %#v", k, v, want)
				}
			}
		})
	}
}

func TestToolHistoryWithoutToolsSendsEmptyTools(t *testing.T) {
	got := body(t, Request{Model: Model{ID: "m", Provider: "p", BaseURL: "http://h"}, Messages: []Message{
		assistant("m", StopToolUse, toolCall("c", "read", `{}`)), toolResult("c", "r"),
	}})
	if tools, ok := got["tools"].([]any); !ok || len(tools) != 0 {
		t.Fatalf("tools = %#v", got["tools"])
	}
}

func TestBadToolSchemaIsAnError(t *testing.T) {
	c, _ := resolveCompat(Model{})
	_, err := buildParams(Request{Model: Model{ID: "m"}, Tools: []Tool{{Name: "t", Parameters: json.RawMessage(`[1,`)}}}, c)
	if err == nil {
		t.Fatal("broken schema accepted")
	}
}
