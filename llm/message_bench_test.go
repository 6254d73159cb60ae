package llm_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// benchMessages returns the JSON of one coding-agent turn as pi writes it:
// a user prompt, an assistant message with text, thinking and two tool
// calls, and two tool results of about 4 KB of source each (with the
// newlines, tabs and quotes that real file contents carry).
func benchMessages() [][]byte {
	var code strings.Builder
	for i := 0; code.Len() < 4096; i++ {
		fmt.Fprintf(&code, "func f%d(s string) error {\n\tif s == \"\" {\n\t\treturn fmt.Errorf(\"empty %%q\", s)\n\t}\n\treturn nil\n}\n", i)
	}
	prose := strings.Repeat("The user wants the parser to accept trailing commas; check the scanner first. ", 8)
	msgs := []string{
		`{"role":"user","content":[{"type":"text","text":` + quote(prose) + `}],"timestamp":1735689600123}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":` + quote(prose+prose) + `,"thinkingSignature":"sig_0a1b2c"},` +
			`{"type":"text","text":"Let me read the scanner and its tests."},` +
			`{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"internal/scan/scanner.go","offset":1,"limit":400}},` +
			`{"type":"toolCall","id":"call_2","name":"bash","arguments":{"command":"go test ./internal/scan/ -run TestTrailing","timeout":120}}],` +
			`"api":"openai-completions","provider":"openai","model":"gpt-4.1",` +
			`"usage":{"input":48213,"output":812,"cacheRead":40960,"cacheWrite":0,"totalTokens":49025,"cost":{"input":0.0193,"output":0.0065,"cacheRead":0.0041,"cacheWrite":0,"total":0.0299}},` +
			`"stopReason":"toolUse","timestamp":1735689601456}`,
		`{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":` + quote(code.String()) + `}],"isError":false,"timestamp":1735689601789}`,
		`{"role":"toolResult","toolCallId":"call_2","toolName":"bash","content":[{"type":"text","text":` + quote(code.String()[:2048]) + `}],"details":{"exitCode":1,"truncated":false},"isError":true,"timestamp":1735689602001}`,
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = []byte(m)
	}
	return out
}

func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchmarkMessageUnmarshal decodes one turn's messages, reporting the
// throughput in MB/s of JSON read.
func BenchmarkMessageUnmarshal(b *testing.B) {
	msgs := benchMessages()
	var n int64
	for _, m := range msgs {
		if !json.Valid(m) {
			b.Fatalf("invalid benchmark message %s", m)
		}
		n += int64(len(m))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range msgs {
			var m llm.Message
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
			if len(m.Content) == 0 {
				b.Fatal("no content decoded")
			}
		}
	}
}

// BenchmarkDecodeContent decodes the content array of a tool result alone.
func BenchmarkDecodeContent(b *testing.B) {
	var aux struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(benchMessages()[2], &aux); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(aux.Content)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := llm.DecodeContent(aux.Content)
		if err != nil || len(c) != 1 {
			b.Fatal(len(c), err)
		}
	}
}
