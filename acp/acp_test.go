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
	// Chunk text may be held back and released with the next line: the
	// chunks, in order, carry the text; the other lines come through one each.
	var chunks string
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var c chunkHead
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if c.Params.Update.Content.Text != nil && c.Method == "session/update" {
			chunks += *c.Params.Update.Content.Text + "|"
			continue
		}
		got = append(got, l)
	}
	if len(got) != 2 {
		t.Fatalf("got %d write lines, want 2:\n%s", len(got), out.String())
	}
	if strings.Contains(chunks, "hunter2") || strings.Contains(chunks, `\u0032`) || strings.ReplaceAll(chunks, "|", "") != "the token is "+tools.Mask+" <b>"+tools.Mask {
		t.Errorf("chunks not masked (or HTML-escaped, or a secret spelled with an escape got through): %s", chunks)
	}
	var w struct {
		Params struct {
			Content string `json:"content"`
			Path    string `json:"path"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(got[0]), &w); err != nil || w.Params.Content != "MY_TOKEN=hunter2hunter2\n" {
		t.Errorf("fs/write_text_file content changed: %s (%v)", got[0], err)
	}
	if !strings.Contains(got[1], `"content":""`) {
		t.Errorf("empty content lost: %s", got[1])
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

// TestEgressMasksDecodedValues: a secret inside JSON-escaped tool arguments
// is masked in the decoded value (the arguments stay valid JSON), and a line
// that cannot be masked never goes out as it is.
func TestEgressMasksDecodedValues(t *testing.T) {
	var out bytes.Buffer
	e := newEgress(&out, tools.NewRedactor(nil))
	args, _ := json.Marshal(`{"command":"echo \"MY_TOKEN=hunter2hunter2\""}`)
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","rawInput":` + string(args) + `}}}` + "\n"
	if _, err := e.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Fatalf("escaped secret sent: %s", out.String())
	}
	var m struct {
		Params struct {
			Update struct {
				RawInput string `json:"rawInput"`
			} `json:"update"`
		} `json:"params"`
	}
	var in struct{ Command string }
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || json.Unmarshal([]byte(m.Params.Update.RawInput), &in) != nil || in.Command != `echo "MY_TOKEN=`+tools.Mask+`"` {
		t.Fatalf("want valid nested JSON with the token masked: %s (%v)", out.String(), err)
	}

	out.Reset()
	if _, err := e.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":{"text":"MY_TOKEN=hunter2hunter2` + "\n")); err != nil {
		t.Fatalf("a broken response must be answered, not fail: %v", err)
	}
	var resp struct {
		ID    int                `json:"id"`
		Error struct{ Code int } `json:"error"`
	}
	if strings.Contains(out.String(), "hunter2") || json.Unmarshal(out.Bytes(), &resp) != nil || resp.ID != 7 || resp.Error.Code != -32603 {
		t.Fatalf("want a -32603 error response for id 7, got %q", out.String())
	}
	out.Reset()
	if _, err := e.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"MY_TOKEN=hunter2hunter2` + "\n")); err == nil || out.Len() != 0 {
		t.Fatalf("a broken notification must not be sent: err %v, wrote %q", err, out.String())
	}
}

// chunkHead is the part of a chunk line the tests read.
type chunkHead struct {
	Method string `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}
