package integration

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Issue 22 over the real binary: reviewable approvals, writes through the
// editor, prompt context, files/search, built-in commands, drafts returned
// by an abort, cost, titles and history like live.

const calcBefore = `package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }

func helper() {}

func more() {}

func evenMore() {}

// Mul returns a*b.
func Mul(a, b int) int { return a * b }
`

// two hunks far apart: a comment on Add and a comment on Mul.
const calcEdit = `{"path":"calc.go","edits":[{"oldText":"// Add returns a+b.","newText":"// Add returns the sum a+b."},{"oldText":"// Mul returns a*b.","newText":"// Mul returns the product a*b."}]}`

// reviewer answers ui/requestApproval with a scripted reply and keeps the
// requests.
type reviewer struct {
	mu      sync.Mutex
	reply   func(req map[string]any) map[string]any
	request []map[string]any
}

func (r *reviewer) install(s *server) {
	s.Handle("ui/requestApproval", func(_ context.Context, params json.RawMessage) (any, error) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.request = append(r.request, p)
		return r.reply(p), nil
	})
}

func (r *reviewer) last(t *testing.T) map[string]any {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.request) == 0 {
		t.Fatal("no approval request")
	}
	return r.request[len(r.request)-1]
}

// lastRequest is the last chat request the fake model got.
func lastRequest(t *testing.T, e *env) string {
	t.Helper()
	reqs := e.llm.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	return string(reqs[len(reqs)-1])
}

func TestReviewPreviewAndPartialAccept(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: calcEdit}}},
		{Match: "Dropped hunks", Text: "understood, Mul keeps its comment"},
	})
	file := filepath.Join(e.workspace, "calc.go")
	writeFile(t, file, calcBefore)
	accepted := strings.Replace(calcBefore, "// Add returns a+b.", "// Add returns the sum a+b.", 1)
	s := e.start(startOpt{})
	rv := &reviewer{reply: func(req map[string]any) map[string]any {
		return map[string]any{"decision": "approve", "content": accepted}
	}}
	rv.install(s)
	s.prompt("document calc")
	s.waitIdle()

	req := rv.last(t)
	pv, _ := req["preview"].(map[string]any)
	if pv == nil {
		t.Fatalf("approval request has no preview: %v", req)
	}
	if pv["path"] != file || pv["before"] != calcBefore || !strings.Contains(pv["after"].(string), "the product a*b") {
		t.Fatalf("preview: %v", pv)
	}
	diff := pv["diff"].(string)
	if !strings.Contains(diff, "-// Add returns a+b.") || !strings.Contains(diff, "+// Mul returns the product a*b.") || strings.Count(diff, "@@ -") != 2 {
		t.Fatalf("preview diff:\n%s", diff)
	}
	if got := readFile(t, file); got != accepted {
		t.Fatalf("file holds:\n%s\nwant the accepted content:\n%s", got, accepted)
	}
	body := lastRequest(t, e)
	if !strings.Contains(body, "accepted 1 of its 2 hunk(s)") || !strings.Contains(body, `+// Mul returns the product a*b.`) {
		t.Fatalf("the model was not told which hunk was dropped: %s", body)
	}
	// The display shows the diff of what was written, and the pending
	// approval carried only the diff (no whole files in frames).
	v, _ := s.Display()
	for _, it := range v.State.Items {
		if it.Kind == "tool" && it.ID == "e1" {
			if !strings.Contains(it.Diff, "the sum") || strings.Contains(it.Diff, "the product") {
				t.Fatalf("tool item diff:\n%s", it.Diff)
			}
		}
	}
	if strings.Contains(s.allNotifications(), `"before":"package calc`) {
		t.Fatal("a display frame carried the whole file")
	}
}

func TestReviewDeclineWithFeedbackAndBadContent(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: calcEdit}}},
		{Match: "use doc comments in English", Text: "ok, redoing"},
		{Match: "second", ToolCalls: []llmtest.ToolCall{{ID: "e2", Name: "edit", Arguments: calcEdit}}},
		{Match: "content must be a string", Text: "the editor sent garbage"},
		{Match: "third", ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"echo hi > out.txt"}`}}},
		{Match: "not an edit or a write", Text: "bash cannot take content"},
	})
	file := filepath.Join(e.workspace, "calc.go")
	writeFile(t, file, calcBefore)
	s := e.start(startOpt{})
	n := 0
	rv := &reviewer{reply: func(req map[string]any) map[string]any {
		n++
		switch n {
		case 1:
			return map[string]any{"decision": "decline", "feedback": "use doc comments in English"}
		case 2:
			return map[string]any{"decision": "approve", "content": 42}
		default:
			return map[string]any{"decision": "approve", "content": "x"}
		}
	}}
	rv.install(s)
	s.prompt("document calc")
	s.waitIdle()
	if !strings.Contains(lastRequest(t, e), "The user's reason: use doc comments in English") {
		t.Fatal("the feedback did not reach the model")
	}
	s.prompt("second try")
	s.waitIdle()
	s.prompt("third try")
	s.waitIdle()
	if got := readFile(t, file); got != calcBefore {
		t.Fatalf("a declined edit changed the file:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(e.workspace, "out.txt")); err == nil {
		t.Fatal("bash ran although its approval carried content")
	}
	if e.llm.Pending() != 0 {
		t.Fatalf("unused scripted answers: %d (a refusal did not say what it should)", e.llm.Pending())
	}
}

func TestWritesGoThroughTheEditorWhenDeclared(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: `{"path":"buf.txt","edits":[{"oldText":"UNSAVED","newText":"EDITED"}]}`}}},
		{Match: "Successfully", Text: "done"},
	})
	file := filepath.Join(e.workspace, "buf.txt")
	writeFile(t, file, "saved on disk\n")
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
	var mu sync.Mutex
	buffer := "UNSAVED buffer text\n"
	var writes []string
	s.Handle("fs/readTextFile", func(_ context.Context, params json.RawMessage) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return map[string]any{"text": buffer}, nil
	})
	s.Handle("fs/writeTextFile", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct{ Path, Content string }
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		defer mu.Unlock()
		writes = append(writes, p.Path)
		buffer = p.Content
		return nil, nil
	})
	s.prompt("edit the buffer")
	s.waitIdle()
	mu.Lock()
	defer mu.Unlock()
	if len(writes) != 1 || writes[0] != file || buffer != "EDITED buffer text\n" {
		t.Fatalf("writes %v, buffer %q", writes, buffer)
	}
	if got := readFile(t, file); got != "saved on disk\n" {
		t.Fatalf("the server wrote the disk itself: %q", got)
	}
}

func TestPromptContextFilesSearchAndCommands(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "seen"}}, llmtest.ModelSpec{ID: "m1", Input: []string{"text", "image"}})
	writeFile(t, filepath.Join(e.workspace, ".gitignore"), "build/\n")
	writeFile(t, filepath.Join(e.workspace, "src", "calc.go"), "line1\nline2\nline3\nline4\n")
	writeFile(t, filepath.Join(e.workspace, "src", "calc_test.go"), "package calc\n")
	writeFile(t, filepath.Join(e.workspace, "build", "calc.go"), "ignored\n")
	if err := os.MkdirAll(filepath.Join(e.workspace, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := e.start(startOpt{})

	var fr struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	s.call("files/search", map[string]any{"query": "calc", "limit": 10}, &fr)
	var paths []string
	for _, f := range fr.Files {
		paths = append(paths, f.Path)
	}
	if len(paths) != 2 || paths[0] != "src/calc.go" || paths[1] != "src/calc_test.go" {
		t.Fatalf("files/search calc = %v", paths)
	}
	if err := s.try("files/search", map[string]any{"query": 3}, nil); err == nil || !strings.Contains(err.Error(), "query") {
		t.Fatalf("bad query: %v", err)
	}

	sel := "the selected text"
	s.call("agent/prompt", map[string]any{"text": "explain this", "context": []map[string]any{
		{"type": "file", "path": "src/calc.go", "range": map[string]any{"startLine": 2, "endLine": 3}},
		{"type": "selection", "path": "src/calc.go", "range": map[string]any{"startLine": 4, "endLine": 4}, "text": sel},
		{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
	}}, nil)
	s.waitIdle()
	body := lastRequest(t, e)
	for _, want := range []string{
		`\u003ceditor-context type=\"file\" path=\"src/calc.go\" lines=\"2-3\"\u003e\nline2\nline3\n\u003c/editor-context\u003e`,
		`\u003ceditor-context type=\"selection\" path=\"src/calc.go\" lines=\"4-4\"\u003e\nthe selected text\n`,
		`data:image/png;base64,iVBORw0KGgo=`,
	} {
		if !strings.Contains(body, want) && !strings.Contains(body, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(want)) {
			t.Fatalf("the request lacks %s:\n%s", want, body)
		}
	}
	v, _ := s.Display()
	user := v.State.Items[0]
	if user.Kind != "user" || user.Text != "explain this" || len(user.Attachments) != 3 || user.Attachments[0].Lines != "2-3" {
		t.Fatalf("user item: %+v", user)
	}
	if err := s.try("agent/prompt", map[string]any{"text": "x", "context": []map[string]any{{"type": "selection", "path": "a"}}}, nil); err == nil || !strings.Contains(err.Error(), "context[0]") {
		t.Fatalf("a selection without text: %v", err)
	}

	var cl struct {
		Commands []struct {
			Name, Kind string
		} `json:"commands"`
	}
	s.call("commands/list", nil, &cl)
	got := map[string]string{}
	for _, c := range cl.Commands {
		got[c.Name] = c.Kind
	}
	for _, n := range []string{"new", "compact", "model", "mode", "tree", "name"} {
		if got[n] != "builtin" {
			t.Fatalf("commands/list lacks /%s: %v", n, cl.Commands)
		}
	}
}

func TestAbortReturnsDraftsAndMarksInterrupted(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{Match: "LONG", Text: strings.Repeat("long ", 400), ChunkDelayMs: 15},
	})
	s := e.start(startOpt{})
	s.prompt("LONG answer")
	s.waitFor("streaming text", func() bool {
		v, _ := s.Display()
		return len(v.State.Items) > 1 && len(v.State.Items[1].Text) > 20
	})
	s.call("agent/followUp", map[string]any{"text": "then the tests"}, nil)
	s.call("agent/steer", map[string]any{"text": "and be brief"}, nil)
	var res struct {
		ReturnedDrafts []string `json:"returnedDrafts"`
	}
	s.call("agent/abort", nil, &res)
	if strings.Join(res.ReturnedDrafts, "|") != "and be brief|then the tests" {
		t.Fatalf("agent/abort returned %v", res.ReturnedDrafts)
	}
	s.waitIdle()
	s.waitFor("display settles", func() bool {
		v, _ := s.Display()
		return v.State.Status == "idle" && len(v.State.ReturnedDrafts) == 2
	})
	v, _ := s.Display()
	if a := v.State.Items[1]; a.Kind != "assistant" || a.Status != "interrupted" {
		t.Fatalf("the partial answer: %+v", a)
	}
	if len(v.State.Queue.Steering)+len(v.State.Queue.FollowUp) != 0 {
		t.Fatalf("queue not empty: %+v", v.State.Queue)
	}
}

func TestCostTitlesAndHistoryLikeLive(t *testing.T) {
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "e1", Name: "edit", Arguments: calcEdit}}, Usage: &llmtest.Usage{Prompt: 1000, Completion: 200}},
		{Match: "Successfully", Text: "done", Usage: &llmtest.Usage{Prompt: 2000, Completion: 100, Cached: 500}},
		{Match: "LOUD", ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: `{"command":"seq 1 3000"}`}}, Usage: &llmtest.Usage{Prompt: 10, Completion: 10}},
		{Match: "Full output", Text: "long", Usage: &llmtest.Usage{Prompt: 10, Completion: 10}},
	}, llmtest.ModelSpec{ID: "m1", Name: "M1", Cost: &llmtest.Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}})
	writeFile(t, filepath.Join(e.workspace, "calc.go"), calcBefore)
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("Document the calc package please, with comments on every exported function of it")
	s.waitIdle()
	s.prompt("LOUD output")
	s.waitIdle()

	var st struct {
		Tokens struct {
			Cost, TurnCost struct{ Input, Output, CacheRead, Total float64 }
		} `json:"tokens"`
	}
	s.call("session/state", nil, &st)
	// 1000+1500 input (500 cached), 300 output; then 10+10 twice.
	want := (3*(1000+1500+20) + 15*(200+100+20) + 0.3*500) / 1e6
	if math.Abs(st.Tokens.Cost.Total-want) > 1e-9 {
		t.Fatalf("session cost %+v, want total %.6f", st.Tokens.Cost, want)
	}
	if turn := (3*10 + 15*10) / 1e6; math.Abs(st.Tokens.TurnCost.Total-turn) > 1e-9 {
		t.Fatalf("turn cost %+v, want %.6f", st.Tokens.TurnCost, turn)
	}
	v, _ := s.Display()
	if math.Abs(v.State.Tokens.Cost.Total-want) > 1e-9 {
		t.Fatalf("display cost %+v", v.State.Tokens.Cost)
	}
	live := map[string]string{}
	for _, it := range v.State.Items {
		if it.Kind == "tool" {
			live[it.ID] = it.Diff + "|" + it.Output
		}
	}

	// A new empty session is not listed; the first one has a title.
	var sess struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	s.call("session/new", nil, &sess)
	type listed struct {
		ID, Path, Title      string
		Fork, Empty, Current bool
	}
	var list struct{ Sessions []listed }
	s.call("session/list", map[string]any{}, &list)
	if len(list.Sessions) != 2 || !list.Sessions[0].Current || !list.Sessions[0].Empty ||
		list.Sessions[1].Title != "Document the calc package please, with comments on every…" {
		t.Fatalf("session/list: %+v", list.Sessions)
	}
	first := list.Sessions[1]

	// Reopen the first session in a second server: the empty session is
	// not listed there (unless asked), and the items show what the live
	// stream showed.
	s2 := e.start(startOpt{initOpts: map[string]any{"session": first.Path}})
	s2.call("session/list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != first.ID || !list.Sessions[0].Current {
		t.Fatalf("session/list without empty sessions: %+v", list.Sessions)
	}
	s2.call("session/list", map[string]any{"includeEmpty": true}, &list)
	if len(list.Sessions) != 2 {
		t.Fatalf("session/list includeEmpty: %+v", list.Sessions)
	}
	s2.waitFor("history", func() bool {
		v, _ := s2.Display()
		return len(v.State.Items) > 3
	})
	v2, _ := s2.Display()
	for _, it := range v2.State.Items {
		if it.Kind != "tool" {
			continue
		}
		if got := it.Diff + "|" + it.Output; got != live[it.ID] {
			t.Fatalf("history item %s:\n%s\nlive:\n%s", it.ID, got, live[it.ID])
		}
		if it.ID == "b1" && !strings.Contains(it.Output, "3000\n\n[Showing lines") || it.ID == "e1" && !strings.HasPrefix(it.Diff, "--- a/calc.go") {
			t.Fatalf("history item %s: %q", it.ID, it.Diff+it.Output)
		}
	}
}
