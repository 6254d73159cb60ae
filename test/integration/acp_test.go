package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// acpClient is a bare NDJSON client of `pi-lsp acp`.
type acpClient struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	next  int
	seen  []map[string]json.RawMessage

	mu  sync.Mutex
	raw []byte // every byte read from its stdout
}

// received returns every byte the client read so far.
func (c *acpClient) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.raw...)
}

func (e *env) startACP(extraEnv ...string) *acpClient {
	t := e.t
	t.Helper()
	cmd := exec.Command(binPath, "acp", "--model", "fake/m1")
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "HOME="+e.home, "PI_LSP_MODELS="+e.models, "PI_LSP_SESSIONS="+e.sessions,
		"OPENAI_API_KEY=", "OPENROUTER_API_KEY=")
	cmd.Env = append(cmd.Env, extraEnv...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &acpClient{t: t, cmd: cmd, in: in, lines: make(chan []byte, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.mu.Lock()
			c.raw = append(append(c.raw, sc.Bytes()...), '\n')
			c.mu.Unlock()
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.lines)
	}()
	return c
}

// call sends a request and returns its result, keeping the notifications
// that came first; agent requests are answered with allow_once.
func (c *acpClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.next++
	id := c.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("%s: pi-lsp acp closed its output", method)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				c.t.Fatalf("not a protocol line on stdout: %q", line)
			}
			if _, isReq := m["method"]; isReq {
				if rid, ok := m["id"]; ok {
					ans, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
					_, _ = c.in.Write(append(ans, '\n'))
					continue
				}
				c.seen = append(c.seen, m)
				continue
			}
			if string(m["id"]) != fmt.Sprint(id) {
				continue
			}
			if e, ok := m["error"]; ok {
				c.t.Fatalf("%s: %s", method, e)
			}
			return m["result"]
		case <-timeout:
			c.t.Fatalf("%s: no answer; received so far:\n%.4000s", method, c.received())
		}
	}
}

func (c *acpClient) close() {
	_ = c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			c.t.Errorf("pi-lsp acp exited with %v", err)
		}
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		c.t.Errorf("pi-lsp acp did not exit when its stdin closed")
	}
}

// TestSessionCrossesWires: a session started over the native protocol (VS
// Code, Neovim) is loaded and continued over ACP (Zed), and the native
// protocol then sees both turns.
func TestSessionCrossesWires(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Text: "native answer"},
		{Match: "from zed", Text: "acp answer"},
	})
	s := e.start(startOpt{})
	s.prompt("from vscode")
	st := s.waitIdle()
	_ = s.Close()
	_ = s.cmd.Wait()

	a := e.startACP()
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(a.call("session/list", map[string]any{"cwd": e.workspace}), &list); err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != st.SessionID {
		t.Fatalf("session/list: %+v %v (want %s)", list, err, st.SessionID)
	}
	a.call("session/load", map[string]any{"sessionId": st.SessionID, "cwd": e.workspace, "mcpServers": []any{}})
	// A client appends chunk text: the egress may send one message's text
	// in more than one chunk (it holds back what could begin a secret).
	replay, text := "", ""
	for _, m := range a.seen {
		replay += string(m["params"])
		var p struct {
			Update struct {
				Content struct{ Text string } `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(m["params"], &p) == nil {
			text += p.Update.Content.Text
		}
	}
	for _, want := range []string{`"user_message_chunk"`, "from vscode", "native answer"} {
		if !strings.Contains(replay, want) && !strings.Contains(text, want) {
			t.Errorf("replay lacks %s: %s", want, replay)
		}
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(a.call("session/prompt", map[string]any{"sessionId": st.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "from zed"}}}), &r)
	if r.StopReason != "end_turn" {
		t.Fatalf("stopReason %q", r.StopReason)
	}
	a.close()

	s2 := e.start(startOpt{initOpts: map[string]any{"session": st.Path}})
	if got := strings.Join(roles(s2.entries()), ","); got != "user,assistant:stop,user,assistant:stop" {
		t.Errorf("native view after ACP: %s", got)
	}
}
