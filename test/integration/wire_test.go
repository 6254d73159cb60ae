package integration

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

func TestPromptWithToolCallStreamsAndRecords(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Text: "Reading it.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"hello.txt"}`}}},
		{Match: "hello from disk", Text: "The file greets you: hello from disk.", ChunkSize: 3},
	})
	writeFile(t, filepath.Join(e.workspace, "hello.txt"), "hello from disk\n")
	s := e.start(startOpt{})

	var ns struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	s.call("session/new", map[string]any{}, &ns)
	if ns.SessionID == "" || !strings.HasPrefix(ns.Path, e.sessions) {
		t.Fatalf("session/new: %+v", ns)
	}
	s.prompt("what is in hello.txt?")
	st := s.waitIdle()
	if st.SessionID != ns.SessionID || st.Model != "fake/m1" || st.MessageCount != 4 {
		t.Fatalf("state: %+v", st)
	}
	if got, want := roles(s.entries()), []string{"user", "assistant:toolUse", "toolResult", "assistant:stop"}; !slices.Equal(got, want) {
		t.Fatalf("entries %v want %v", got, want)
	}
	// The display state, rebuilt from diffs, shows the streamed answer and the tool.
	s.waitFor("display", func() bool {
		v, _ := s.Display()
		return v.State.Status == "idle" && len(v.State.Items) >= 4
	})
	v, err := s.Display()
	if err != nil || v.Gaps != 0 || v.Err != nil {
		t.Fatalf("display: %+v %v", v, err)
	}
	last := v.State.Items[len(v.State.Items)-1]
	if last.Kind != "assistant" || last.Text != "The file greets you: hello from disk." {
		t.Fatalf("last item %+v", last)
	}
	var sawTool bool
	for _, it := range v.State.Items {
		if it.Kind == "tool" && it.ToolName == "read" && strings.Contains(it.Output, "hello from disk") && it.Status == "done" {
			sawTool = true
		}
	}
	if !sawTool {
		t.Fatalf("no finished read tool item: %+v", v.State.Items)
	}
	// A snapshot equals the diff-built copy.
	var snap struct {
		Version int64           `json:"version"`
		State   json.RawMessage `json:"state"`
	}
	s.call("display/snapshot", nil, &snap)
	var snapState struct {
		Items []struct {
			Text string `json:"text"`
		} `json:"items"`
	}
	_ = json.Unmarshal(snap.State, &snapState)
	if len(snapState.Items) != len(v.State.Items) || snapState.Items[len(snapState.Items)-1].Text != last.Text {
		t.Fatalf("snapshot differs from the diff-built state")
	}
}

func TestSteerFollowUpInterruptAndAbort(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"sleep 0.5; echo ok"}`}}},
		{Match: "STEERED", Text: "took the steer"},
		{Match: "FOLLOWED", Text: "took the follow-up"},
		{Match: "LONG", Text: strings.Repeat("long ", 300), ChunkDelayMs: 15},
		{Match: "INTERRUPTED", Text: "switched"},
		{Match: "ABORTME", Text: strings.Repeat("more ", 300), ChunkDelayMs: 15},
	})
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("run the command")
	s.waitFor("bash running", func() bool {
		v, _ := s.Display()
		for _, it := range v.State.Items {
			if it.Kind == "tool" && it.ToolName == "bash" {
				return true
			}
		}
		return false
	})
	s.call("agent/followUp", map[string]any{"text": "FOLLOWED up"}, nil)
	var d struct {
		Delivery string `json:"delivery"`
	}
	s.call("agent/prompt", map[string]any{"text": "STEERED now"}, &d)
	if d.Delivery != "steer" {
		t.Fatalf("delivery %q", d.Delivery)
	}
	s.waitIdle()
	want := []string{"user", "assistant:toolUse", "toolResult", "user", "assistant:stop", "user", "assistant:stop"}
	ents := s.entries()
	if got := roles(ents); !slices.Equal(got, want) {
		t.Fatalf("roles %v want %v", got, want)
	}

	// Interrupt a long stream.
	s.prompt("LONG answer please")
	s.waitFor("streaming", func() bool { return s.state().IsRunning })
	time.Sleep(100 * time.Millisecond)
	s.call("agent/interrupt", map[string]any{"text": "INTERRUPTED, do this"}, nil)
	s.waitIdle()
	got := roles(s.entries())
	if tail := got[len(got)-4:]; !slices.Equal(tail, []string{"user", "assistant:aborted", "user", "assistant:stop"}) {
		t.Fatalf("after interrupt: %v", got)
	}

	// Abort.
	s.prompt("ABORTME please")
	s.waitFor("streaming", func() bool { return s.state().IsRunning })
	time.Sleep(100 * time.Millisecond)
	s.call("agent/abort", nil, nil)
	st := s.waitIdle()
	got = roles(s.entries())
	if got[len(got)-1] != "assistant:aborted" {
		t.Fatalf("after abort: %v", got)
	}
	if st.Phase != "idle" {
		t.Fatalf("phase %s", st.Phase)
	}
}

func TestReopenTreeNavigateAndExit(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "first answer"}, {Text: "second answer"}, {Text: "branch answer"}})
	s := e.start(startOpt{})
	s.prompt("first question")
	s.waitIdle()
	s.prompt("second question")
	st := s.waitIdle()
	path := st.Path

	var tree struct {
		LeafID string           `json:"leafId"`
		Nodes  []map[string]any `json:"nodes"`
	}
	s.call("session/tree", nil, &tree)
	if tree.LeafID == "" || len(tree.Nodes) == 0 {
		t.Fatalf("tree: %+v", tree)
	}
	// Find the second user message and navigate to it: the leaf moves to its
	// parent and its text comes back for editing.
	var secondUser string
	for _, en := range s.entries() {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" && strings.Contains(mustJSON(m["content"]), "second question") {
			secondUser = en["id"].(string)
		}
	}
	var nav struct {
		LeafID     string `json:"leafId"`
		EditorText string `json:"editorText"`
	}
	s.call("session/navigate", map[string]any{"targetId": secondUser}, &nav)
	if nav.EditorText != "second question" {
		t.Fatalf("navigate: %+v", nav)
	}
	if got := roles(s.entries()); !slices.Equal(got, []string{"user", "assistant:stop"}) {
		t.Fatalf("branch after navigate: %v", got)
	}
	s.prompt("branch question")
	s.waitIdle()
	s.call("session/label", map[string]any{"entryId": secondUser, "label": "old path"}, nil)

	// Shut down cleanly; the process exits 0.
	s.call("shutdown", nil, nil)
	if err := s.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s, 0)

	// A new process reopens the session: same branch, the label, two branches in the tree.
	s2 := e.start(startOpt{})
	var op struct {
		SessionID string `json:"sessionId"`
	}
	s2.call("session/open", map[string]any{"path": path}, &op)
	if got := roles(s2.entries()); !slices.Equal(got, []string{"user", "assistant:stop", "user", "assistant:stop"}) {
		t.Fatalf("reopened branch: %v", got)
	}
	// The first question and answer are one chain; below its last entry,
	// the two questions that branch from the first answer.
	s2.call("session/tree", map[string]any{"depth": 4}, &tree)
	js := mustJSON(tree.Nodes)
	if !strings.Contains(js, `"label":"old path"`) || strings.Count(js, `"role":"user"`) != 2 || !strings.Contains(js, `"lastChildCount":2`) {
		t.Fatalf("tree after reopen: %s", js)
	}
	st2 := s2.state()
	if st2.MessageCount != 4 || st2.Model != "fake/m1" {
		t.Fatalf("state after reopen: %+v", st2)
	}
	v, _ := s2.Display()
	if len(v.State.Items) < 4 {
		t.Fatalf("display not seeded from history: %+v", v.State.Items)
	}
}

func waitExit(t *testing.T, s *server, want int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		var ee interface{ ExitCode() int }
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != want {
			t.Fatalf("exit code %d, want %d (%v)", code, want, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pi-lsp did not exit")
	}
}

func TestErrorsKeepServing(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "fine", Repeat: true}})
	s := e.start(startOpt{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cases := []struct {
		method string
		params any
		code   int
	}{
		{"no/such", nil, -32601},
		{"agent/prompt", map[string]any{"text": 5}, -32602},
		{"agent/prompt", map[string]any{}, -32602},
		{"session/open", map[string]any{"path": "/nonexistent/x.jsonl"}, -32005},
		{"thinking/set", map[string]any{"level": "ultra"}, -32602},
		{"model/set", map[string]any{"model": "nope/nope"}, -32005},
		{"session/navigate", map[string]any{"targetId": "deadbeef"}, -32005},
	}
	for _, c := range cases {
		err := s.Call(ctx, c.method, c.params, nil)
		var re *rpctest.Error
		if !errors.As(err, &re) || re.Code != c.code {
			t.Errorf("%s %v: got %v, want code %d", c.method, c.params, err, c.code)
		}
	}
	// Malformed frames, then a good request still works.
	_ = s.WriteRaw([]byte("Content-Length: 5\r\n\r\n{bad}"))
	_ = s.WriteRaw(rpctest.Frame([]byte(`[1,2]`)))
	s.prompt("still there?")
	s.waitIdle()
	// busy while running
	e.llm.Append(llmtest.Response{Match: "SLOW", Text: strings.Repeat("x ", 200), ChunkDelayMs: 10})
	s.prompt("SLOW")
	s.waitFor("running", func() bool { return s.state().IsRunning })
	err := s.Call(ctx, "session/new", map[string]any{}, nil)
	var re *rpctest.Error
	if !errors.As(err, &re) || re.Code != -32001 {
		t.Fatalf("session/new while running: %v", err)
	}
	s.call("agent/abort", nil, nil)
	s.waitIdle()
}

func TestProtocolDocMethodsAreServed(t *testing.T) {
	e := newEnv(t, nil)
	s := e.start(startOpt{})
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "### ") {
			// A method heading names the method first; a prose heading
			// ("Display streams") names none.
			if name := strings.Fields(strings.TrimPrefix(line, "### "))[0]; strings.ContainsAny(name, "/$") || name == "initialize" || name == "initialized" || name == "shutdown" || name == "exit" {
				documented = append(documented, name)
			}
		}
	}
	var res struct {
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
		Capabilities struct {
			Methods []string `json:"methods"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(s.init, &res); err != nil || res.ServerInfo.Name != "pi-lsp" {
		t.Fatalf("initialize result %s: %v", s.init, err)
	}
	serverSide := map[string]bool{"display/state": true, "harness/event": true, "$/progress": true, "window/logMessage": true, "skills/changed": true,
		"ui/requestApproval": true, "ui/askQuestion": true, "ui/approvePlan": true, "fs/readTextFile": true, "fs/writeTextFile": true,
		"ui/resolved": true, "session/owner": true, "ui/elicit": true, "window/showDocument": true,
		"editor/diagnostics": true, "editor/lsp": true,
		"initialize": true, "initialized": true, "shutdown": true, "exit": true}
	for _, m := range documented {
		if !serverSide[m] && !slices.Contains(res.Capabilities.Methods, m) {
			t.Errorf("documented method %s is not served", m)
		}
	}
	for _, m := range res.Capabilities.Methods {
		if !slices.Contains(documented, m) {
			t.Errorf("served method %s is not documented", m)
		}
	}
	// Every JSON example in the document parses.
	blocks := strings.Split(string(doc), "```json")
	for i, b := range blocks[1:] {
		body := b[:strings.Index(b, "```")]
		if !json.Valid([]byte(body)) {
			t.Errorf("JSON example %d does not parse:\n%s", i+1, body)
		}
	}
}

func TestReadsUnsavedEditorBuffers(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "read", Arguments: `{"path":"buf.txt"}`}}},
		{Match: "UNSAVED", Text: "saw the buffer"},
	})
	writeFile(t, filepath.Join(e.workspace, "buf.txt"), "saved on disk\n")
	s := e.start(startOpt{caps: map[string]any{"fs": map[string]any{"readTextFile": true}}})
	s.Handle("fs/readTextFile", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Path == filepath.Join(e.workspace, "buf.txt") {
			return map[string]any{"text": "UNSAVED buffer text\n"}, nil
		}
		return nil, nil
	})
	s.prompt("read buf.txt")
	s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatal("the model did not see the editor's buffer")
	}
}

func TestExitsWhenParentDiesAndKillsTools(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"sleep 300 & echo $! > child.pid; wait"}`}}},
	})
	// A short-lived "editor" process whose pid pi-lsp watches.
	parent := exec.Command("sleep", "30")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	s := e.startWithPID(parent.Process.Pid, startOpt{args: []string{"--yolo"}})
	s.prompt("sleep a while")
	pidFile := filepath.Join(e.workspace, "child.pid")
	s.waitFor("child started", func() bool { return readFile(t, pidFile) != "" })
	_ = parent.Process.Kill()
	_ = parent.Wait()
	waitExit(t, s, 0)
	pid := strings.TrimSpace(readFile(t, pidFile))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphan bash child %s survived pi-lsp", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExitsWhenStdinCloses(t *testing.T) {
	e := newEnv(t, nil)
	s := e.start(startOpt{})
	_ = s.Close()
	waitExit(t, s, 0)
}

func TestNoModelErrorSaysHowToConfigure(t *testing.T) {
	e := newEnv(t, nil)
	e.models = filepath.Join(t.TempDir(), "none.json") // no such file
	s := e.start(startOpt{args: []string{"--model", ""}, extraEnv: []string{"PI_LSP_MODELS="}})
	err := s.try("agent/prompt", map[string]any{"text": "hi"}, nil)
	var re *rpctest.Error
	if !errors.As(err, &re) || re.Code != -32003 {
		t.Fatalf("prompt without a model: %v", err)
	}
	if !strings.Contains(re.Message, "OPENAI_API_KEY") || strings.Count(re.Message, "no usable model") != 1 {
		t.Fatalf("message: %q", re.Message)
	}
}

func TestCompactionBudgetOverridePerModel(t *testing.T) {
	e := newEnv(t, nil, llmtest.ModelSpec{ID: "m1", ContextWindow: 40000})
	settings := filepath.Join(e.home, "pi-lsp.json")
	writeFile(t, settings, `{"compaction": {"fake/m1": {"reserveTokens": 3000, "keepRecentTokens": 9000}}}`)
	s := e.start(startOpt{extraEnv: []string{"PI_LSP_SETTINGS=" + settings}})
	st := s.state()
	if st.Tokens.ReserveTokens != 3000 || st.Tokens.KeepRecent != 9000 || st.ContextWindow != 40000 {
		t.Fatalf("budget in force: %+v", st.Tokens)
	}
	s2 := e.start(startOpt{})
	if st := s2.state(); st.Tokens.ReserveTokens == 3000 {
		t.Fatalf("without the setting the derived budget applies: %+v", st.Tokens)
	}
}

// An initialize that fails (a session file that is not there) answers
// not-found and leaves nothing behind: the client can initialize again.
func TestFailedInitializeCanBeRetried(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "fine", Repeat: true}})
	s := e.spawn(startOpt{})
	_, err := s.initialize(os.Getpid(), startOpt{initOpts: map[string]any{"session": filepath.Join(e.sessions, "missing.jsonl")}})
	var re *rpctest.Error
	if !errors.As(err, &re) || re.Code != -32005 {
		t.Fatalf("initialize with a missing session: %v", err)
	}
	if _, err := s.initialize(os.Getpid(), startOpt{}); err != nil {
		t.Fatalf("initialize again: %v", err)
	}
	s.prompt("hello")
	s.waitIdle()
	if st := s.state(); st.MessageCount != 2 {
		t.Fatalf("state after the retry: %+v", st)
	}
}
