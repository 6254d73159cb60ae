package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

func intPtr(i int) *int { return &i }

type decodeCase struct {
	name string
	in   string
	want llm.Message
}

// decodeCases pins what Message.UnmarshalJSON makes of tricky inputs.
func decodeCases() []decodeCase {
	return []decodeCase{
		{"string content", `{"role":"user","content":"hi there","timestamp":5}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("hi there")}, Timestamp: 5}},
		{"empty string content", `{"role":"user","content":""}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("")}}},
		{"null content", `{"role":"user","content":null,"timestamp":1}`,
			llm.Message{Role: llm.RoleUser, Timestamp: 1}},
		{"absent content", `{"role":"compactionSummary","summary":"s","tokensBefore":12,"timestamp":3}`,
			llm.Message{Role: llm.RoleCompactionSummary, Summary: "s", TokensBefore: 12, Timestamp: 3}},
		{"empty content array", `{"role":"assistant","content":[]}`,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{}}},
		{"role only", `{"role":"toolResult"}`, llm.Message{Role: llm.RoleToolResult}},
		{"hookMessage is custom", `{"role":"hookMessage","customType":"note","content":"x","display":true,"details":{"a":1}}`,
			llm.Message{Role: llm.RoleCustom, CustomType: "note", Content: []llm.ContentBlock{llm.TextBlock("x")}, Display: true, Details: json.RawMessage(`{"a":1}`)}},
		{"float timestamp", `{"role":"user","content":[],"timestamp":1735689600123.9}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{}, Timestamp: 1735689600123}},
		{"exponent timestamp", `{"role":"user","timestamp":1.5e3}`, llm.Message{Role: llm.RoleUser, Timestamp: 1500}},
		{"string timestamp holding a number", `{"role":"user","timestamp":"42"}`, llm.Message{Role: llm.RoleUser, Timestamp: 42}},
		{"unicode", `{"role":"user","content":[{"type":"text","text":"h\u00e9llo 世界 🎉 \ud83d\ude00\n\t\"q\""}]}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("héllo 世界 🎉 😀\n\t\"q\"")}}},
		{"image block", `{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("see"), {Type: llm.BlockImage, Data: "iVBORw0KGgo=", MimeType: "image/png"}}}},
		{"toolCall arguments kept byte-exact", `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":{ "path" : "a.go",  "content":"x\u0041", "n":1.50 }}],"stopReason":"toolUse"}`,
			llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.ContentBlock{{Type: llm.BlockToolCall, ID: "c1", Name: "write",
				Arguments: json.RawMessage(`{ "path" : "a.go",  "content":"x\u0041", "n":1.50 }`)}}}},
		{"toolCall null arguments", `{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":null}]}`,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{{Type: llm.BlockToolCall, ID: "c", Name: "n", Arguments: json.RawMessage("null")}}}},
		{"redacted thinking", `{"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"opaque==","redacted":true}]}`,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{{Type: llm.BlockThinking, ThinkingSignature: "opaque==", Redacted: true}}}},
		{"unknown block type kept", `{"role":"assistant","content":[{"type":"video","url":"u","text":"t"}]}`,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{{Type: "video", Text: "t"}}}},
		{"null block", `{"role":"user","content":[null]}`, llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{{}}}},
		{"unknown fields ignored", `{"x":{"content":"no"},"role":"user","extra":[1,{"content":[]}],"content":[{"type":"text","text":"a","more":true}],"api":"z"}`,
			llm.Message{Role: llm.RoleUser, API: "z", Content: []llm.ContentBlock{llm.TextBlock("a")}}},
		{"content lookalikes in strings", `{"role":"user","details":"\",\"content\":\"x","content":[{"type":"text","text":"\\\",\"content\":5"}]}`,
			llm.Message{Role: llm.RoleUser, Details: json.RawMessage(`"\",\"content\":\"x"`), Content: []llm.ContentBlock{llm.TextBlock(`\","content":5`)}}},
		{"key matched case-insensitively", `{"ROLE":"user","Content":"c"}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("c")}}},
		{"escaped key", `{"role":"user","con\u0074ent":"c"}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("c")}}},
		{"duplicate content arrays: last wins", `{"role":"user","content":[{"type":"text","text":"a"}],"content":[{"type":"image","data":"d"}]}`,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{{Type: llm.BlockImage, Data: "d"}}}},
		{"duplicate content string then null", `{"role":"user","content":"a","content":null}`, llm.Message{Role: llm.RoleUser}},
		{"whitespace everywhere", " {\n\t\"role\" : \"user\" ,\r\n \"content\" :\t \"w\" } ",
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentBlock{llm.TextBlock("w")}}},
		{"assistant", `{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}},"stopReason":"error","errorMessage":"boom","timestamp":9}`,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentBlock{llm.TextBlock("ok")}, API: "openai-completions", Provider: "openai", Model: "gpt-4.1",
				Usage:      llm.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 10, Cost: llm.Cost{Input: 0.5, Output: 0.25, Total: 0.75}},
				StopReason: llm.StopError, ErrorMessage: "boom", Timestamp: 9}},
		{"bashExecution", `{"role":"bashExecution","command":"ls","output":"a\n","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","excludeFromContext":true,"timestamp":2}`,
			llm.Message{Role: llm.RoleBashExecution, Command: "ls", Output: "a\n", ExitCode: intPtr(0), Truncated: true, FullOutputPath: "/tmp/o", ExcludeFromContext: true, Timestamp: 2}},
		{"toolResult", `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"details":null,"isError":true,"timestamp":4}`,
			llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []llm.ContentBlock{llm.TextBlock("x")}, Details: json.RawMessage("null"), IsError: true, Timestamp: 4}},
		{"branchSummary", `{"role":"branchSummary","summary":"went left","fromId":"ab12","timestamp":7}`,
			llm.Message{Role: llm.RoleBranchSummary, Summary: "went left", FromID: "ab12", Timestamp: 7}},
	}
}

func TestMessageDecode(t *testing.T) {
	for _, tc := range decodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			var got llm.Message
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("decoded\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

type decodeErrorCase struct {
	name, in, want string
	typed          bool
}

// decodeErrorCases pins the errors of bad input; typed says whether a
// *json.UnmarshalTypeError must be reachable with errors.As.
func decodeErrorCases() []decodeErrorCase {
	return []decodeErrorCase{
		{"no role", `{"content":"x"}`, "llm: message without a role", false},
		{"null message", `null`, "llm: message without a role", false},
		{"not an object", `[1]`, "llm: message: json: cannot unmarshal array", true},
		{"content number", `{"role":"user","content":5}`, "llm: content blocks: json: cannot unmarshal number", true},
		{"content object", `{"role":"user","content":{"type":"text"}}`, "llm: content blocks: json: cannot unmarshal object", true},
		{"block text number", `{"role":"user","content":[{"type":"text","text":5}]}`, "llm: content blocks: json: cannot unmarshal number into Go struct field", true},
		{"block not an object", `{"role":"user","content":["x"]}`, "llm: content blocks: json: cannot unmarshal string", true},
		{"role number", `{"role":1,"content":[]}`, "llm: message: json: cannot unmarshal number", true},
		{"bad timestamp string", `{"role":"user","timestamp":"soon"}`, "llm: message: json: invalid number literal", false},
		{"bad usage", `{"role":"assistant","usage":{"input":"many"}}`, "llm: message: json: cannot unmarshal string", true},
		{"no role and bad content", `{"content":5}`, "llm: message without a role", false},
	}
}

func TestMessageDecodeErrors(t *testing.T) {
	for _, tc := range decodeErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			m := llm.UserText("kept", 1)
			err := m.UnmarshalJSON([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var te *json.UnmarshalTypeError
			if tc.typed && !errors.As(err, &te) {
				t.Errorf("error %v does not wrap a *json.UnmarshalTypeError", err)
			}
			if !reflect.DeepEqual(m, llm.UserText("kept", 1)) {
				t.Errorf("a failed decode changed the message to %#v", m)
			}
		})
	}
	if err := json.Unmarshal([]byte(`{"role":"user",`), new(llm.Message)); err == nil {
		t.Error("truncated JSON decoded without an error")
	}
}

func TestContentBlockUnmarshalReplaces(t *testing.T) {
	b := llm.ContentBlock{Type: llm.BlockToolCall, ID: "old", Name: "n", Arguments: json.RawMessage(`{}`), Text: "stale"}
	if err := json.Unmarshal([]byte(`{"type":"image","data":"d","mimeType":"image/gif","ignored":1}`), &b); err != nil {
		t.Fatal(err)
	}
	if want := (llm.ContentBlock{Type: llm.BlockImage, Data: "d", MimeType: "image/gif"}); !reflect.DeepEqual(b, want) {
		t.Errorf("got %#v, want %#v", b, want)
	}
	err := json.Unmarshal([]byte(`{"type":"text","text":false}`), &b)
	if err == nil || !strings.HasPrefix(err.Error(), "llm: content block: ") {
		t.Errorf("error %v", err)
	}
}

func TestDecodeContent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []llm.ContentBlock
	}{
		{``, nil},
		{`null`, nil},
		{`"s"`, []llm.ContentBlock{llm.TextBlock("s")}},
		{`[]`, []llm.ContentBlock{}},
		{`[{"type":"text","text":"a"},{"type":"thinking","thinking":"t"}]`, []llm.ContentBlock{llm.TextBlock("a"), {Type: llm.BlockThinking, Thinking: "t"}}},
	} {
		got, err := llm.DecodeContent(json.RawMessage(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeContent(%s) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{`5`, `"unterminated`, `[{"type":1}]`, `{}`} {
		if _, err := llm.DecodeContent(json.RawMessage(in)); err == nil || !strings.HasPrefix(err.Error(), "llm: content") {
			t.Errorf("DecodeContent(%s) error %v", in, err)
		}
	}
}

// piShapes are messages exactly as pi serialises them (key order included).
func piShapes() []string {
	return []string{
		`{"role":"user","content":[{"type":"text","text":"fix the bug"},{"type":"image","data":"QUJD","mimeType":"image/jpeg"}],"timestamp":1735689600123}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"thinking","thinking":"","redacted":true},{"type":"text","text":"Reading."},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go","limit":20}}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.001,"output":0.002,"cacheRead":0,"cacheWrite":0,"total":0.003}},"stopReason":"toolUse","timestamp":1735689601000}`,
		`{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"429 rate limited","timestamp":2}`,
		`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"package a\n\nfunc A() {}\n"}],"details":{"truncation":null},"isError":false,"timestamp":1735689601500}`,
		`{"role":"bashExecution","command":"go test ./...","output":"ok\n","exitCode":1,"cancelled":false,"truncated":false,"fullOutputPath":"/tmp/pi-bash-1.log","timestamp":3}`,
		`{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"excludeFromContext":true,"timestamp":4}`,
		`{"role":"custom","customType":"todo","content":[{"type":"text","text":"- [ ] a"}],"display":true,"details":{"n":1},"timestamp":5}`,
		`{"role":"branchSummary","summary":"tried X","fromId":"a1b2c3d4","timestamp":6}`,
		`{"role":"compactionSummary","summary":"## Goal\n...","tokensBefore":123456,"timestamp":7}`,
	}
}

func TestMessageRoundTrip(t *testing.T) {
	shapes := piShapes()
	for _, m := range benchMessages() {
		shapes = append(shapes, string(m))
	}
	for i, in := range shapes {
		var m llm.Message
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("shape %d: %v", i, err)
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("shape %d: %v", i, err)
		}
		if string(out) != in {
			t.Errorf("shape %d round trip\n got %s\nwant %s", i, out, in)
		}
	}
}

// TestMessageDecodeMatchesReference checks the decoder against the
// implementation it replaced (refMessage), on every input of this file.
func TestMessageDecodeMatchesReference(t *testing.T) {
	for _, in := range referenceInputs() {
		checkAgainstReference(t, []byte(in))
	}
}

func FuzzMessageDecode(f *testing.F) {
	for _, in := range referenceInputs() {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgainstReference(t, data) })
}

func referenceInputs() []string {
	var ins []string
	for _, tc := range decodeCases() {
		ins = append(ins, tc.in)
	}
	for _, tc := range decodeErrorCases() {
		ins = append(ins, tc.in)
	}
	ins = append(ins, piShapes()...)
	for _, m := range benchMessages() {
		ins = append(ins, string(m))
	}
	return append(ins,
		`{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}`,
		`{"role":"user","content":[{"type":"text","text":"a"}],"Content":[{"type":"image"}]}`,
		`{"role":"user","content":[],"content":"s"}`,
		`{"role":"user","content":"s","content":[]}`,
		`{"role":"user","content":"a","content":"b"}`,
		`{"role":"user","content":[{"type":"text","text":"a"}],"cont\u0065nt":[{"type":"image"}]}`,
		`{"role":"user","usage":{"input":1},"usage":{"output":2}}`,
		`{"role":"user","content":[{}],"timestamp":-0.5}`,
		`{"role":"user","content":[{"type":"text"}]`,
		`{"role":"user","content":"\ud800"}`,
		`{"role":"user","content":"a\\"}`,
		`{"role":"user","content":true}`,
		`{}`, `""`, `5`, `{"role":"user",}`, `{"role":"user"}}`,
	)
}

func checkAgainstReference(t *testing.T, data []byte) {
	t.Helper()
	var got llm.Message
	gotErr := got.UnmarshalJSON(data)
	want, wantErr := refMessage(data)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, reference error %v", data, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ndecoded   %#v\nreference %#v", data, got, want)
	}
}

// refBlock and refMessage are the decoder this package had before the
// single-pass one: a json.Unmarshal per message, per content array and
// per block.
type refBlock llm.ContentBlock

func (b *refBlock) UnmarshalJSON(data []byte) error {
	var aux struct {
		Type              string          `json:"type"`
		Text              string          `json:"text"`
		Data              string          `json:"data"`
		MimeType          string          `json:"mimeType"`
		Thinking          string          `json:"thinking"`
		ThinkingSignature string          `json:"thinkingSignature"`
		Redacted          bool            `json:"redacted"`
		ID                string          `json:"id"`
		Name              string          `json:"name"`
		Arguments         json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*b = refBlock{Type: aux.Type, Text: aux.Text, Data: aux.Data, MimeType: aux.MimeType,
		Thinking: aux.Thinking, ThinkingSignature: aux.ThinkingSignature, Redacted: aux.Redacted,
		ID: aux.ID, Name: aux.Name, Arguments: aux.Arguments}
	return nil
}

func refContent(raw json.RawMessage) ([]llm.ContentBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []llm.ContentBlock{llm.TextBlock(s)}, nil
	}
	var blocks []refBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	if blocks == nil {
		return nil, nil
	}
	out := make([]llm.ContentBlock, len(blocks))
	for i, b := range blocks {
		out[i] = llm.ContentBlock(b)
	}
	return out, nil
}

func refMessage(data []byte) (llm.Message, error) {
	var aux struct {
		Role               llm.Role        `json:"role"`
		Content            json.RawMessage `json:"content"`
		Timestamp          json.Number     `json:"timestamp"`
		API                string          `json:"api"`
		Provider           string          `json:"provider"`
		Model              string          `json:"model"`
		Usage              *llm.Usage      `json:"usage"`
		StopReason         llm.StopReason  `json:"stopReason"`
		ErrorMessage       string          `json:"errorMessage"`
		ToolCallID         string          `json:"toolCallId"`
		ToolName           string          `json:"toolName"`
		IsError            bool            `json:"isError"`
		Details            json.RawMessage `json:"details"`
		Command            string          `json:"command"`
		Output             string          `json:"output"`
		ExitCode           *int            `json:"exitCode"`
		Cancelled          bool            `json:"cancelled"`
		Truncated          bool            `json:"truncated"`
		FullOutputPath     string          `json:"fullOutputPath"`
		ExcludeFromContext bool            `json:"excludeFromContext"`
		CustomType         string          `json:"customType"`
		Display            bool            `json:"display"`
		Summary            string          `json:"summary"`
		FromID             string          `json:"fromId"`
		TokensBefore       int             `json:"tokensBefore"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return llm.Message{}, err
	}
	if aux.Role == "" {
		return llm.Message{}, fmt.Errorf("no role")
	}
	if aux.Role == "hookMessage" {
		aux.Role = llm.RoleCustom
	}
	content, err := refContent(aux.Content)
	if err != nil {
		return llm.Message{}, err
	}
	ts, _ := aux.Timestamp.Float64()
	m := llm.Message{
		Role: aux.Role, Content: content, Timestamp: int64(ts),
		API: aux.API, Provider: aux.Provider, Model: aux.Model, StopReason: aux.StopReason, ErrorMessage: aux.ErrorMessage,
		ToolCallID: aux.ToolCallID, ToolName: aux.ToolName, IsError: aux.IsError, Details: aux.Details,
		Command: aux.Command, Output: aux.Output, ExitCode: aux.ExitCode, Cancelled: aux.Cancelled, Truncated: aux.Truncated,
		FullOutputPath: aux.FullOutputPath, ExcludeFromContext: aux.ExcludeFromContext,
		CustomType: aux.CustomType, Display: aux.Display,
		Summary: aux.Summary, FromID: aux.FromID, TokensBefore: aux.TokensBefore,
	}
	if aux.Usage != nil {
		m.Usage = *aux.Usage
	}
	return m, nil
}
