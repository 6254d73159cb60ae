package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/tools"
)

func TestEgressMasksSecretsButNotWrittenFiles(t *testing.T) {
	var out bytes.Buffer
	e := newEgress(&out, tools.NewRedactor([]string{"MY_TOKEN=hunter2hunter2"}))
	lines := []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the token is hunter2hunter2 <b>"}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/p/.env","content":"MY_TOKEN=hunter2hunter2\n"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hunter\u0032hunter2"}}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{"sessionId":"s","path":"/p/empty","content":""}}`,
	}
	for _, l := range lines {
		if _, err := e.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != len(lines) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(lines), out.String())
	}
	if strings.Contains(got[0], "hunter2") || !strings.Contains(got[0], tools.Mask) || !strings.Contains(got[0], "<b>") {
		t.Errorf("chunk not masked (or HTML-escaped): %s", got[0])
	}
	var w struct {
		Params struct {
			Content string `json:"content"`
			Path    string `json:"path"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(got[1]), &w); err != nil || w.Params.Content != "MY_TOKEN=hunter2hunter2\n" {
		t.Errorf("fs/write_text_file content changed: %s (%v)", got[1], err)
	}
	if strings.Contains(got[2], "hunter2hunter2") || strings.Contains(got[2], `\u0032`) {
		t.Errorf("a secret spelled with an escape got through: %s", got[2])
	}
	if !strings.Contains(got[3], `"content":""`) {
		t.Errorf("empty content lost: %s", got[3])
	}
}

func TestCheckLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		code int // 0 = forwarded
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, 0},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{`hello`, -32700},
		{`[1,2]`, -32600},
		{`42`, -32600},
		{`{"jsonrpc":"2.0"}`, -32600},
		{`{"id":1,"method":"x"}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, -32600},
	} {
		fwd, bad := checkLine([]byte(tc.line))
		if tc.code == 0 {
			if bad != nil || string(fwd) != tc.line+"\n" {
				t.Errorf("%s: want forwarded, got %s", tc.line, bad)
			}
			continue
		}
		var e struct {
			Error struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(bad, &e); err != nil || e.Error.Code != tc.code {
			t.Errorf("%s: want %d, got %s", tc.line, tc.code, bad)
		}
	}
}

// FuzzFilterInput: arbitrary bytes never panic or hang the filter, every
// reply is one JSON line, and a good line after a newline gets through.
func FuzzFilterInput(f *testing.F) {
	f.Add([]byte("garbage\n{\"jsonrpc\":\"2.0\"}\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"\n"))
	f.Add([]byte("\x00\xff[]\n\n  \n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":null}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`))
	good := `{"jsonrpc":"2.0","id":77,"method":"session/list","params":{}}`
	f.Fuzz(func(t *testing.T, data []byte) {
		var fwd, reply bytes.Buffer
		in := append(append(append([]byte(nil), data...), '\n'), good+"\n"...)
		if err := filterInput(bytes.NewReader(in), &fwd, &reply, newWireOrder().observe); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(fwd.String(), good+"\n") {
			t.Fatalf("the good line was lost: %q", fwd.String())
		}
		for _, l := range strings.Split(strings.TrimSuffix(reply.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("reply is not JSON: %q", l)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(fwd.String(), "\n"), "\n") {
			if !json.Valid([]byte(l)) {
				t.Fatalf("forwarded a line that is not JSON: %q", l)
			}
		}
	})
}

// TestQueueCancelOverPipes drives a running turn, a queued prompt and a
// cancel through Serve with the race detector watching the worker.
func TestQueueCancelOverPipes(t *testing.T) {
	long := strings.Repeat("chunk ", 800)
	f := newFixture(t, []llmtest.Response{
		{Text: "first " + long, ChunkDelayMs: 20},
		{Text: "never streamed"},
	}, nil)
	sid := f.initSession(t, map[string]any{})
	p1 := f.c.start("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "one"}}})
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, us := f.c.snapshot()
		if chunkText(us, "agent_message_chunk") != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no chunk streamed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p2 := f.c.start("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "two"}}})
	f.c.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	for i, p := range []func() map[string]json.RawMessage{p1, p2} {
		m := p()
		var r struct {
			StopReason string `json:"stopReason"`
		}
		if err := json.Unmarshal(m["result"], &r); err != nil || r.StopReason != "cancelled" {
			t.Errorf("prompt %d: want cancelled, got %s %s", i+1, m["result"], m["error"])
		}
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("model calls: %d, want 1 (the queued prompt was cancelled before it ran)", n)
	}
	lines, _ := f.c.snapshot()
	for _, l := range lines {
		if bytes.Contains(l, []byte("sk-secretsecret")) {
			t.Errorf("secret on the wire: %s", l)
		}
	}
}

func TestWireOrderStampsPromptsAndRecordsCancels(t *testing.T) {
	o := newWireOrder()
	p1 := o.observe([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":{"x":1}}}` + "\n"))
	o.observe([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n"))
	p3 := o.observe([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[],"_meta":null}}` + "\n"))
	seq := func(line []byte) uint64 {
		var m struct {
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if m.Params.Meta["x"] == nil && bytes.Contains(line, []byte(`"x"`)) {
			t.Errorf("the client's _meta was lost: %s", line)
		}
		return promptSeq(m.Params.Meta)
	}
	s1, s3 := seq(p1), seq(p3)
	if !o.cancelledAfter("s", s1) || o.cancelledAfter("s", s3) || o.cancelledAfter("other", s1) || o.cancelledAfter("s", 0) {
		t.Errorf("cancelledAfter: s1=%d s3=%d", s1, s3)
	}
}
