package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Subagents (issue 19): isolated and forked children, over the real binary.

func subagentCall(id string, args map[string]any) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "subagent", Arguments: mustJSON(args)}
}

// wireRequest is a chat request as the fake received it, its parts raw.
type wireRequest struct {
	Messages []json.RawMessage `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

func decodeWire(t *testing.T, body []byte) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return r
}

func toolNames(t *testing.T, r wireRequest) []string {
	t.Helper()
	var out []string
	for _, raw := range r.Tools {
		var tool struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Function.Name)
	}
	return out
}

// logWith returns the log entries whose body contains s, in order.
func logWith(log []llmtest.LogEntry, s string) []llmtest.LogEntry {
	var out []llmtest.LogEntry
	for _, e := range log {
		if bytes.Contains(e.Body, []byte(s)) {
			out = append(out, e)
		}
	}
	return out
}

// sessionLines reads a session file as decoded lines.
func sessionLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

// toolResult returns the parent's toolResult message for call id.
func toolResult(t *testing.T, entries []map[string]any, id string) map[string]any {
	t.Helper()
	for _, e := range entries {
		if m, ok := e["message"].(map[string]any); ok && m["role"] == "toolResult" && m["toolCallId"] == id {
			return m
		}
	}
	t.Fatalf("no tool result for %s", id)
	return nil
}

func resultText(m map[string]any) string {
	var b strings.Builder
	for _, c := range m["content"].([]any) {
		if s, ok := c.(map[string]any)["text"].(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

func listSessions(s *server, include bool) []string {
	var res struct {
		Sessions []struct {
			Path string `json:"path"`
		} `json:"sessions"`
	}
	s.call("session/list", map[string]any{"includeSubagents": include}, &res)
	var out []string
	for _, x := range res.Sessions {
		out = append(out, x.Path)
	}
	return out
}

func TestSubagentExploreIsolatedReadOnlyRecordedAndOpenedByPi(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "PARENT-HISTORY-MARKER", Text: "Hello there."},
		{Match: "look for the needle", ToolCalls: []llmtest.ToolCall{subagentCall("sa1", map[string]any{"agent": "explore", "task": "Find NEEDLE-TASK in notes.txt"})}},
		{Match: "Find NEEDLE-TASK", ToolCalls: []llmtest.ToolCall{
			writeCall("cw1", "evil.txt", "should never be written"),
			{ID: "cr1", Name: "read", Arguments: `{"path":"notes.txt"}`},
		}},
		{Match: "is not available", Text: "CHILD-ANSWER: the needle is on line 2 of notes.txt", ChunkSize: 5},
		{Match: "CHILD-ANSWER", Text: "The explorer found it."},
	})
	writeFile(t, filepath.Join(e.workspace, "AGENTS.md"), "PROJECT-RULE: answer tersely.\n")
	writeFile(t, filepath.Join(e.workspace, "notes.txt"), "hay\nneedle\nhay\n")
	s := e.start(startOpt{})
	s.prompt("hello PARENT-HISTORY-MARKER")
	s.waitIdle()
	s.prompt("look for the needle")
	st := s.waitIdle()

	// The child's first request: its prompt, AGENTS.md, the task, nothing of the parent.
	child := logWith(e.llm.Log(), "Find NEEDLE-TASK")
	if len(child) < 3 { // the child's two requests and the parent's next one
		t.Fatalf("child requests: %d", len(child))
	}
	first := decodeWire(t, child[0].Body)
	if bytes.Contains(child[0].Body, []byte("PARENT-HISTORY-MARKER")) || bytes.Contains(child[0].Body, []byte("look for the needle")) {
		t.Fatalf("the isolated child's first request carries parent history:\n%s", child[0].Body)
	}
	if len(first.Messages) != 2 || !strings.Contains(string(first.Messages[0]), "explore subagent") ||
		!strings.Contains(string(first.Messages[0]), "PROJECT-RULE") || !strings.Contains(string(first.Messages[1]), "Find NEEDLE-TASK") {
		t.Fatalf("child's first request messages: %s", first.Messages)
	}
	if got := toolNames(t, first); !slices.Equal(got, []string{"read", "grep", "find", "ls"}) {
		t.Fatalf("explore offers %v", got)
	}
	// The write it attempted was refused, the read ran.
	if _, err := os.Stat(filepath.Join(e.workspace, "evil.txt")); err == nil {
		t.Fatal("the explore child wrote a file")
	}
	second := string(child[1].Body)
	if !strings.Contains(second, `Tool \"write\" is not available`) || !strings.Contains(second, "needle") {
		t.Fatalf("child's second request: %s", second)
	}

	// Its answer is the parent's tool result, with the footer and the link.
	entries := s.entries()
	res := toolResult(t, entries, "sa1")
	text := resultText(res)
	if !strings.HasPrefix(text, "CHILD-ANSWER: the needle is on line 2") || !strings.Contains(text, "[subagent explore: 2 turns, 2 tool calls,") {
		t.Fatalf("parent's tool result: %q", text)
	}
	details := res["details"].(map[string]any)
	childPath := details["session"].(string)
	if details["agent"] != "explore" || details["status"] != "done" || childPath == "" {
		t.Fatalf("details: %v", details)
	}
	// The child's file: parentSession, the pi-lsp/subagent entry, its messages.
	lines := sessionLines(t, childPath)
	if lines[0]["type"] != "session" || lines[0]["parentSession"] != st.Path {
		t.Fatalf("child header: %v (parent %s)", lines[0], st.Path)
	}
	var custom map[string]any
	var childRoles []string
	for _, l := range lines[1:] {
		if l["type"] == "custom" && l["customType"] == "pi-lsp/subagent" {
			custom = l["data"].(map[string]any)
		}
		if m, ok := l["message"].(map[string]any); ok {
			childRoles = append(childRoles, m["role"].(string))
		}
	}
	if custom == nil || custom["agent"] != "explore" || custom["task"] != "Find NEEDLE-TASK in notes.txt" || custom["parentToolCallId"] != "sa1" {
		t.Fatalf("pi-lsp/subagent entry: %v", custom)
	}
	if want := []string{"user", "assistant", "toolResult", "toolResult", "assistant"}; !slices.Equal(childRoles, want) {
		t.Fatalf("child messages %v, want %v", childRoles, want)
	}
	// Hidden from the session list unless asked for.
	if l := listSessions(s, false); slices.Contains(l, childPath) || !slices.Contains(l, st.Path) {
		t.Fatalf("session/list: %v", l)
	}
	if l := listSessions(s, true); !slices.Contains(l, childPath) {
		t.Fatalf("session/list includeSubagents: %v", l)
	}
	// The display nests the child under the parent's tool item.
	s.waitFor("the child in the display", func() bool {
		v, err := s.Display()
		if err != nil {
			return false
		}
		for _, it := range v.State.Items {
			if it.ID == "sa1" && it.Child != nil && it.Child.Status == "done" && it.Child.Agent == "explore" && it.Child.Session == childPath {
				var texts []string
				for _, ci := range it.Child.Items {
					texts = append(texts, string(ci.Kind)+":"+ci.ToolName+":"+ci.Status+":"+ci.Text)
				}
				j := strings.Join(texts, "|")
				return strings.Contains(j, "assistant:::CHILD-ANSWER: the needle is on line 2 of notes.txt") &&
					strings.Contains(j, "tool:write:error:") && strings.Contains(j, "tool:read:done:") && it.Child.Tokens.Input > 0
			}
		}
		return false
	})

	// pi 0.73.1 opens the child's session.
	pitest.Bin(t)
	before := readFile(t, childPath)
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
	pi := pitest.Start(t, piEnv(t, e), e.workspace, "--session", childPath, "--provider", "fake", "--model", "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	msgs := piMessages(ctx, t, pi)
	if len(msgs) != 5 || msgs[0]["role"] != "user" || !strings.Contains(mustJSON(msgs[4]["content"]), "CHILD-ANSWER") {
		t.Fatalf("pi opens the child with %d messages: %v", len(msgs), msgs)
	}
	if pst := getPiState(ctx, t, pi); pst.SessionFile != childPath {
		t.Fatalf("pi's session file %s", pst.SessionFile)
	}
	if readFile(t, childPath) != before {
		t.Fatal("pi changed the child's session on open")
	}
}

func TestSubagentForkRepeatsTheParentsLastRequest(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "first message", Text: "Noted."},
		{Match: "please fork", ToolCalls: []llmtest.ToolCall{subagentCall("f1", map[string]any{"task": "FORK-TASK: summarise", "fork": true})}},
		{Match: "FORK-TASK", ToolCalls: []llmtest.ToolCall{
			{ID: "ft1", Name: "task_write", Arguments: `{"tasks":[{"content":"x","status":"pending"}]}`},
			subagentCall("ft2", map[string]any{"agent": "explore", "task": "GRANDCHILD-TASK"}),
		}},
		{Match: "not available in a forked subagent", Text: "FORK-ANSWER"},
		{Match: "FORK-ANSWER", Text: "Fork done."},
	})
	s := e.start(startOpt{})
	s.prompt("first message")
	s.waitIdle()
	s.prompt("please fork")
	st := s.waitIdle()

	log := e.llm.Log()
	parentReqs := logWith(log, "please fork")
	if len(parentReqs) < 3 {
		t.Fatalf("requests with the parent's prompt: %d", len(parentReqs))
	}
	parent, fork := decodeWire(t, parentReqs[0].Body), decodeWire(t, parentReqs[1].Body)
	if !bytes.Contains(parentReqs[1].Body, []byte("FORK-TASK")) || bytes.Contains(parentReqs[0].Body, []byte("FORK-TASK")) {
		t.Fatal("the second request with the parent's prompt is not the fork's first")
	}
	// Byte for byte: the system prompt, the tools in order, the messages.
	if len(fork.Messages) != len(parent.Messages)+1 {
		t.Fatalf("fork has %d messages, parent %d", len(fork.Messages), len(parent.Messages))
	}
	for i := range parent.Messages {
		if !bytes.Equal(parent.Messages[i], fork.Messages[i]) {
			t.Fatalf("message %d differs:\nparent %s\nfork   %s", i, parent.Messages[i], fork.Messages[i])
		}
	}
	if !strings.Contains(string(parent.Messages[0]), `"role":"system"`) {
		t.Fatalf("first message is not the system prompt: %s", parent.Messages[0])
	}
	if len(fork.Tools) != len(parent.Tools) {
		t.Fatalf("fork has %d tools, parent %d", len(fork.Tools), len(parent.Tools))
	}
	for i := range parent.Tools {
		if !bytes.Equal(parent.Tools[i], fork.Tools[i]) {
			t.Fatalf("tool %d differs:\nparent %s\nfork   %s", i, parent.Tools[i], fork.Tools[i])
		}
	}
	if !slices.Contains(toolNames(t, fork), "subagent") {
		t.Fatal("the fork does not offer the subagent stub")
	}
	last := string(fork.Messages[len(fork.Messages)-1])
	if !strings.Contains(last, `"role":"user"`) || !strings.Contains(last, "FORK-TASK: summarise") {
		t.Fatalf("the fork's new message: %s", last)
	}
	// The task tool was a stub: the parent's task list is untouched.
	var tasks struct {
		Tasks []any `json:"tasks"`
	}
	s.call("tasks/list", nil, &tasks)
	if len(tasks.Tasks) != 0 {
		t.Fatalf("the fork's task_write reached the parent: %v", tasks.Tasks)
	}
	// Depth 1: the fork's subagent call was a stub too; no grandchild asked the model.
	second := string(logWith(log, "FORK-TASK")[1].Body)
	if !strings.Contains(second, "task_write: not available in a forked subagent") || !strings.Contains(second, "subagent: not available in a forked subagent") {
		t.Fatalf("the fork's second request: %s", second)
	}
	for _, e := range log {
		if bytes.Contains(e.Body, []byte("GRANDCHILD-TASK")) && !bytes.Contains(e.Body, []byte("FORK-TASK")) {
			t.Fatalf("a grandchild ran: %s", e.Body)
		}
	}
	res := toolResult(t, s.entries(), "f1")
	if text := resultText(res); !strings.HasPrefix(text, "FORK-ANSWER") || !strings.Contains(text, "[forked subagent general: 2 turns, 2 tool calls,") {
		t.Fatalf("fork result: %q", text)
	}
	childPath := res["details"].(map[string]any)["session"].(string)
	lines := sessionLines(t, childPath)
	if lines[0]["parentSession"] != st.Path || filepath.Base(filepath.Dir(childPath)) != "subagents" {
		t.Fatalf("fork header %v at %s", lines[0], childPath)
	}
	if l := listSessions(s, false); slices.Contains(l, childPath) {
		t.Fatalf("the fork is listed: %v", l)
	}
	if l := listSessions(s, true); !slices.Contains(l, childPath) {
		t.Fatalf("includeSubagents does not list the fork: %v", l)
	}
}

func TestSubagentsOverlapAndTheCapHoldsTheThird(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "three at once", ToolCalls: []llmtest.ToolCall{
			subagentCall("c1", map[string]any{"agent": "explore", "task": "TASK-A"}),
			subagentCall("c2", map[string]any{"agent": "explore", "task": "TASK-B"}),
			subagentCall("c3", map[string]any{"agent": "review", "task": "TASK-C"}),
		}},
		// The first two hold their answers until both are in flight.
		{Match: "TASK-A", AwaitInFlight: 2, Text: "answer A"},
		{Match: "TASK-B", AwaitInFlight: 2, Text: "answer B"},
		{Match: "TASK-C", Text: "answer C"},
		{Match: "answer C", Text: "all three answered"},
	})
	settings := filepath.Join(e.home, "pi-lsp.json")
	writeFile(t, settings, `{"subagents": {"maxConcurrent": 2}}`)
	s := e.start(startOpt{extraEnv: []string{"PI_LSP_SETTINGS=" + settings}})
	s.prompt("three at once")
	s.waitIdle()

	log := e.llm.Log()
	a, b, c := logWith(log, "TASK-A")[0], logWith(log, "TASK-B")[0], logWith(log, "TASK-C")[0]
	t.Logf("request log (start, end, in flight): A %d-%d/%d, B %d-%d/%d, C %d-%d/%d", a.Start, a.End, a.InFlight, b.Start, b.End, b.InFlight, c.Start, c.End, c.InFlight)
	if !a.Overlaps(b) || max(a.InFlight, b.InFlight) != 2 {
		t.Fatalf("the first two children did not overlap: A %d-%d, B %d-%d", a.Start, a.End, b.Start, b.End)
	}
	if c.Start < min(a.End, b.End) || c.InFlight > 2 {
		t.Fatalf("the third child did not wait for a slot: A %d-%d, B %d-%d, C %d-%d", a.Start, a.End, b.Start, b.End, c.Start, c.End)
	}
	for _, e := range log {
		if e.InFlight > 2 {
			t.Fatalf("%d requests in flight at once over a cap of 2", e.InFlight)
		}
	}
	entries := s.entries()
	for id, want := range map[string]string{"c1": "answer A", "c2": "answer B", "c3": "answer C"} {
		if got := resultText(toolResult(t, entries, id)); !strings.HasPrefix(got, want) {
			t.Fatalf("%s: %q", id, got)
		}
	}
}

func TestSubagentAbortStopsEveryChild(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "two slow ones", ToolCalls: []llmtest.ToolCall{
			subagentCall("s1", map[string]any{"agent": "explore", "task": "SLOW-A"}),
			subagentCall("s2", map[string]any{"agent": "explore", "task": "SLOW-B"}),
		}},
		{Match: "SLOW-A", StallMs: 60000, Text: "never"},
		{Match: "SLOW-B", StallMs: 60000, Text: "never"},
	})
	s := e.start(startOpt{})
	s.prompt("two slow ones")
	s.waitFor("both children asking the model", func() bool {
		return len(logWith(e.llm.Log(), "SLOW-A")) == 1 && len(logWith(e.llm.Log(), "SLOW-B")) == 1
	})
	s.call("agent/abort", nil, nil)
	s.waitIdle()
	s.waitFor("both children's streams to end", func() bool {
		for _, e := range e.llm.Log() {
			if e.End == 0 {
				return false
			}
		}
		return true
	})
	n := len(e.llm.Log())
	entries := s.entries()
	for _, id := range []string{"s1", "s2"} {
		res := toolResult(t, entries, id)
		text := resultText(res)
		if res["isError"] != true || !strings.Contains(text, "aborted") {
			t.Fatalf("%s: %q", id, text)
		}
		d, _ := res["details"].(map[string]any)
		if d == nil || d["status"] != "aborted" {
			t.Fatalf("%s details: %v", id, res["details"])
		}
		lines := sessionLines(t, d["session"].(string))
		last := lines[len(lines)-1]["message"].(map[string]any)
		if last["role"] != "assistant" || last["stopReason"] != "aborted" {
			t.Fatalf("%s child's last message: %v", id, last)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if got := len(e.llm.Log()); got != n {
		t.Fatalf("%d requests reached the model after the abort", got-n)
	}
	if st := s.state(); st.IsRunning || st.Phase != "idle" {
		t.Fatalf("state after abort: %+v", st)
	}
}

func TestSubagentApprovalCarriesTheChildAndDisplayStreamsIt(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "delegate the write", ToolCalls: []llmtest.ToolCall{subagentCall("g1", map[string]any{"task": "WRITE-TASK: create child.txt"})}},
		{Match: "WRITE-TASK", Text: "Writing now.", ToolCalls: []llmtest.ToolCall{writeCall("cw", "child.txt", "from the child")}},
		{Match: "Successfully", Text: "CHILD-STREAMED-TEXT: child.txt is written.", ChunkSize: 4},
		{Match: "CHILD-STREAMED-TEXT", Text: "The child wrote it."},
	})
	s := e.start(startOpt{})
	var mu sync.Mutex
	var seen []map[string]any
	s.Handle("ui/requestApproval", func(_ context.Context, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
		return map[string]any{"decision": "approve"}, nil
	})
	s.prompt("delegate the write")
	s.waitIdle()
	if got := readFile(t, filepath.Join(e.workspace, "child.txt")); got != "from the child" {
		t.Fatalf("child.txt: %q", got)
	}
	mu.Lock()
	if len(seen) != 1 {
		t.Fatalf("approvals: %v", seen)
	}
	sub, _ := seen[0]["subagent"].(map[string]any)
	if seen[0]["toolCallId"] != "cw" || seen[0]["toolName"] != "write" || sub["agent"] != "general" || sub["toolCallId"] != "g1" {
		t.Fatalf("approval request: %v", seen[0])
	}
	mu.Unlock()

	entries := s.entries()
	parentInput := 0
	for _, en := range entries {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "assistant" {
			parentInput += int(m["usage"].(map[string]any)["input"].(float64))
		}
	}
	s.waitFor("the child's streamed text under the parent item", func() bool {
		v, err := s.Display()
		if err != nil {
			return false
		}
		for _, it := range v.State.Items {
			if it.ID != "g1" || it.Child == nil || it.Child.Status != "done" {
				continue
			}
			c := it.Child
			ok := len(c.Items) == 4 && c.Items[0].Kind == "user" && c.Items[1].Text == "Writing now." &&
				c.Items[2].ToolName == "write" && c.Items[2].Status == "done" &&
				c.Items[3].Text == "CHILD-STREAMED-TEXT: child.txt is written." && !c.Items[3].Streaming
			// The child's tokens are its own; the parent's totals are the parent's.
			return ok && c.Tokens.Input > 0 && v.State.Tokens.Input == parentInput
		}
		return false
	})
	// The stream of the child's answer went out as appends, coalesced as the parent's.
	appends := 0
	var frames []json.RawMessage
	for _, n := range s.Notifications("display/state") {
		appends += strings.Count(string(n.Params), `"child","items",`)
		frames = append(frames, n.Params)
	}
	if appends == 0 {
		t.Fatal("no op on the child's items on the wire")
	}
	// PI_LSP_RECORD_FRAMES=file records the frames: the editors' tests of the
	// nested rendering replay them (editors/vscode/test/fixtures/subagent-frames.json).
	if out := os.Getenv("PI_LSP_RECORD_FRAMES"); out != "" {
		b, _ := json.MarshalIndent(frames, "", " ")
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSubagentDefinitionsListedAndErrorsNameTheAgents(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "call bad agents", ToolCalls: []llmtest.ToolCall{
			subagentCall("u1", map[string]any{"agent": "nope", "task": "x"}),
		}},
		{Match: "unknown agent", ToolCalls: []llmtest.ToolCall{
			subagentCall("u2", map[string]any{"agent": "broken", "task": "x"}),
		}},
		{Match: "failed validation", Text: "gave up"},
		{Match: "models please", ToolCalls: []llmtest.ToolCall{
			subagentCall("m1", map[string]any{"agent": "docs", "task": "DOCS-TASK"}),
			subagentCall("m2", map[string]any{"agent": "explore", "task": "M2-TASK", "model": "fake/m2"}),
		}},
		{Match: "DOCS-TASK", Text: "docs answer"},
		{Match: "M2-TASK", Text: "m2 answer"},
		{Match: "m2 answer", Text: "both answered"},
	})
	writeFile(t, filepath.Join(e.workspace, ".pi", "agents", "broken.md"), "---\nname: broken\n---\n\nno description\n")
	writeFile(t, filepath.Join(e.workspace, ".pi", "agents", "docs.md"), "---\nname: docs\ndescription: Writes docs.\ntools: [read, write, teleport]\nmodel: nowhere/missing\n---\n\nYou write documentation.\n")
	writeFile(t, filepath.Join(e.workspace, ".claude", "agents", "docs.md"), "---\nname: docs\ndescription: Claude's docs writer.\n---\n\nClaude prompt.\n")
	writeFile(t, filepath.Join(e.workspace, ".claude", "agents", "claude-rev.md"),
		"---\nname: claude-rev\ndescription: Claude Code reviewer.\ntools: Read, Grep, Glob, Bash, WebFetch\nmodel: opus\n---\n\nReview it.\n")
	s := e.start(startOpt{})
	var list struct {
		Agents []struct {
			Name   string   `json:"name"`
			Tools  []string `json:"tools"`
			Model  string   `json:"model"`
			Source string   `json:"source"`
		} `json:"agents"`
		Diagnostics []struct {
			Path     string `json:"path"`
			Message  string `json:"message"`
			Severity string `json:"severity"`
		} `json:"diagnostics"`
	}
	s.call("agents/list", nil, &list)
	byName := map[string]int{}
	for i, a := range list.Agents {
		byName[a.Name] = i
	}
	for _, n := range []string{"general", "explore", "review", "claude-rev", "docs"} {
		if _, ok := byName[n]; !ok {
			t.Fatalf("agents/list lacks %s: %+v", n, list.Agents)
		}
	}
	if cr := list.Agents[byName["claude-rev"]]; !slices.Equal(cr.Tools, []string{"read", "grep", "find", "bash"}) || cr.Model != "" || cr.Source != "claude-project" {
		t.Fatalf("claude-rev: %+v", cr)
	}
	if d := list.Agents[byName["docs"]]; d.Source != "project" || !slices.Equal(d.Tools, []string{"read", "write"}) {
		t.Fatalf("docs (the project's .pi definition wins): %+v", d)
	}
	diags := mustJSON(list.Diagnostics)
	for _, want := range []string{`unknown Claude Code tool \"WebFetch\" dropped`, `model \"opus\" is not provider/id nor a configured alias`,
		`unknown tool \"teleport\" dropped`, `description is required`, `agent \"docs\" is defined again`} {
		if !strings.Contains(diags, want) {
			t.Fatalf("diagnostics lack %q: %s", want, diags)
		}
	}

	s.prompt("call bad agents")
	s.waitIdle()
	entries := s.entries()
	u1 := toolResult(t, entries, "u1")
	if text := resultText(u1); u1["isError"] != true || !strings.Contains(text, `unknown agent "nope"`) ||
		!strings.Contains(text, "Available agents: general (") || !strings.Contains(text, "claude-rev (Claude Code reviewer.)") {
		t.Fatalf("unknown agent: %q", text)
	}
	u2 := toolResult(t, entries, "u2")
	if text := resultText(u2); u2["isError"] != true || !strings.Contains(text, `agent "broken"`) || !strings.Contains(text, "description is required") ||
		!strings.Contains(text, "Available agents:") {
		t.Fatalf("broken agent: %q", text)
	}
	// An unknown model falls back to the parent's with a note; the model param overrides.
	s.prompt("models please")
	s.waitIdle()
	entries = s.entries()
	if text := resultText(toolResult(t, entries, "m1")); !strings.HasPrefix(text, "docs answer") ||
		!strings.Contains(text, `[note: model "nowhere/missing" is unknown`) || !strings.Contains(text, "the subagent runs on fake/m1") {
		t.Fatalf("unknown model: %q", text)
	}
	docsReq := logWith(e.llm.Log(), "DOCS-TASK")[0]
	m2Req := logWith(e.llm.Log(), "M2-TASK")[0]
	if !bytes.Contains(docsReq.Body, []byte(`"model":"m1"`)) || !bytes.Contains(m2Req.Body, []byte(`"model":"m2"`)) {
		t.Fatalf("children's models: docs %s…, explore %s…", docsReq.Body[:80], m2Req.Body[:80])
	}
	if got := toolNames(t, decodeWire(t, docsReq.Body)); !slices.Equal(got, []string{"read", "write"}) {
		t.Fatalf("docs offers %v", got)
	}
	// The definitions are listed in the parent's system prompt.
	first := string(e.llm.Requests()[0])
	if !strings.Contains(first, "<available_agents>") || !strings.Contains(first, "<name>claude-rev</name>") {
		t.Fatalf("system prompt does not list the agents: %s", first)
	}
}
