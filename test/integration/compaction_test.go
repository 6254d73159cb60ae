package integration

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/protocol"
)

// Compaction over stdio (issue 6): a small-window model, tool-heavy runs,
// and the fake LLM's request log as the witness of what the model was sent.

// summaryMatch is a phrase of pi's summarization system prompt: only
// summarizer requests (compaction, split-turn prefix) contain it.
const summaryMatch = "You are a context summarization assistant"

// branchSummaryMatch is a phrase of pi's branch summary prompt.
const branchSummaryMatch = "Create a structured summary of this conversation branch"

// fakeSummary is what the fake summarizer answers.
const fakeSummary = "## Goal\nRead the notes files (CHECKPOINT-ALPHA).\n\n## Progress\n### Done\n- [x] Read the first notes\n\n## Next Steps\n1. Keep reading"

// summaryResponse answers every summarizer request.
func summaryResponse() llmtest.Response {
	return llmtest.Response{Match: summaryMatch, Repeat: true, Text: fakeSummary, ChunkSize: 1 << 16}
}

// chatRequest is the part of a Chat Completions request the tests read.
type chatRequest struct {
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// text is the message's text: a string content, or its text parts joined.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// toolResult is the text of the result the request carries for call id.
func (r chatRequest) toolResult(id string) string {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.text()
		}
	}
	return ""
}

func parseRequest(t *testing.T, body []byte) chatRequest {
	t.Helper()
	var r chatRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request is not JSON: %v", err)
	}
	return r
}

// conversation is the request's messages without the system prompt.
func (r chatRequest) conversation() []chatMessage {
	if len(r.Messages) > 0 && (r.Messages[0].Role == "system" || r.Messages[0].Role == "developer") {
		return r.Messages[1:]
	}
	return r.Messages
}

func isSummaryRequest(body []byte) bool { return strings.Contains(string(body), summaryMatch) }

// entryMessage is the message of a raw session entry, or nil.
func entryMessage(t *testing.T, e map[string]any) *llm.Message {
	t.Helper()
	if e["type"] != "message" {
		return nil
	}
	var m llm.Message
	if err := json.Unmarshal([]byte(mustJSON(e["message"])), &m); err != nil {
		t.Fatalf("entry %v: %v", e["id"], err)
	}
	return &m
}

// compactionsOf returns the compaction entries among entries.
func compactionsOf(entries []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range entries {
		if e["type"] == "compaction" {
			out = append(out, e)
		}
	}
	return out
}

// checkCarriesCompaction checks that req (the first model request after the
// compaction c) holds exactly the summary, rendered as pi renders it, and
// then the kept tail: the messages of branch from c's firstKeptEntryId up to
// c, in order.
func checkCarriesCompaction(t *testing.T, req chatRequest, branch []map[string]any, c map[string]any) {
	t.Helper()
	conv := req.conversation()
	want := llm.CompactionSummaryPrefix + c["summary"].(string) + llm.CompactionSummarySuffix
	if len(conv) == 0 || conv[0].Role != "user" || conv[0].text() != want {
		got := ""
		if len(conv) > 0 {
			got = conv[0].text()
		}
		t.Fatalf("the request after compaction %v does not start with its summary:\n got %.300q\nwant %.300q", c["id"], got, want)
	}
	var kept []*llm.Message
	in := false
	for _, e := range branch {
		if e["id"] == c["firstKeptEntryId"] {
			in = true
		}
		if e["id"] == c["id"] {
			break
		}
		if m := entryMessage(t, e); in && m != nil {
			kept = append(kept, m)
		}
	}
	if !in {
		t.Fatalf("firstKeptEntryId %v of compaction %v is not on the branch", c["firstKeptEntryId"], c["id"])
	}
	tail := conv[1:]
	if len(tail) != len(kept) {
		t.Fatalf("request after compaction has %d messages after the summary, the kept tail has %d", len(tail), len(kept))
	}
	for i, m := range kept {
		got := tail[i]
		switch m.Role {
		case llm.RoleUser:
			if got.Role != "user" || got.text() != m.Text() {
				t.Fatalf("kept message %d: got %s %.80q, want user %.80q", i, got.Role, got.text(), m.Text())
			}
		case llm.RoleAssistant:
			calls := m.ToolCalls()
			if got.Role != "assistant" || len(got.ToolCalls) != len(calls) {
				t.Fatalf("kept message %d: got %s with %d tool calls, want assistant with %d", i, got.Role, len(got.ToolCalls), len(calls))
			}
			for k := range calls {
				if got.ToolCalls[k].ID != calls[k].ID {
					t.Fatalf("kept message %d: tool call %s, want %s", i, got.ToolCalls[k].ID, calls[k].ID)
				}
			}
		case llm.RoleToolResult:
			// A kept output is sent as recorded (a trimmed one keeps its head).
			head := m.Text()
			if len(head) > 200 {
				head = head[:200]
			}
			if got.Role != "tool" || got.ToolCallID != m.ToolCallID || !strings.HasPrefix(got.text(), head) {
				t.Fatalf("kept message %d: got %s %s %.80q, want the result of %s", i, got.Role, got.ToolCallID, got.text(), m.ToolCallID)
			}
		}
	}
}

// notesFile is a file of about n bytes of numbered lines.
func notesFile(tag string, n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s line %03d: notes about the frobnicator, value %d\n", tag, i, i*37%1000)
	}
	return b.String()
}

// readLoop scripts one prompt's run: one read call per file, then an answer.
func readLoop(files []string, answer string) []llmtest.Response {
	var out []llmtest.Response
	for i, f := range files {
		out = append(out, llmtest.Response{
			Text:      fmt.Sprintf("Reading %s.", f),
			ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprintf("call_%s_%d", strings.TrimSuffix(filepath.Base(f), ".txt"), i), Name: "read", Arguments: `{"path":"` + f + `"}`}},
			ChunkSize: 1 << 16,
		})
	}
	return append(out, llmtest.Response{Text: answer, ChunkSize: 1 << 16})
}

func TestCompactionAutoMidToolLoopAndRestart(t *testing.T) {
	const files = 10
	var names []string
	for i := 1; i <= files; i++ {
		names = append(names, fmt.Sprintf("notes/n%02d.txt", i))
	}
	script := append([]llmtest.Response{summaryResponse(), {Text: "Hello, I can read notes.", ChunkSize: 1 << 16}},
		readLoop(names, "All ten notes files are about the frobnicator.")...)
	e := newEnv(t, script, llmtest.ModelSpec{ID: "m1", Name: "Small", ContextWindow: 8000, MaxTokens: 1024})
	for i, n := range names {
		// 2.4 KB each: under the trim limit, so only a compaction can help.
		writeFile(t, filepath.Join(e.workspace, n), notesFile(fmt.Sprintf("n%02d", i+1), 2400))
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("hello")
	s.waitIdle()
	s.prompt("Read every notes file, one after the other.")
	st := s.waitIdle()

	// The run went through all ten reads and the final answer.
	branch := s.entries()
	rs := roles(branch)
	if rs[len(rs)-1] != "assistant:stop" || strings.Count(strings.Join(rs, ","), "toolResult") != files {
		t.Fatalf("run did not finish its tool loop: %v", rs)
	}
	cs := compactionsOf(branch)
	if len(cs) == 0 {
		t.Fatalf("no compaction in a 10-read run on an 8000-token window: %v", rs)
	}
	// It compacted by itself inside the tool loop: before a model call
	// whose previous entry is a tool result, not at a prompt.
	byID := map[string]map[string]any{}
	for _, en := range branch {
		byID[en["id"].(string)] = en
	}
	for _, c := range cs {
		p := byID[c["parentId"].(string)]
		if m := entryMessage(t, p); m == nil || m.Role != llm.RoleToolResult {
			t.Fatalf("compaction %v follows %v, not a tool result: it did not run mid-loop", c["id"], p["type"])
		}
		if c["tokensBefore"].(float64) <= 0 || c["firstKeptEntryId"] == "" {
			t.Fatalf("compaction entry %v", c)
		}
	}

	// The request log: summarizer requests with pi's serialized
	// conversation, each followed by an agent request that carries the
	// summary and the kept tail.
	reqs := e.llm.Requests()
	var groups [][]int // consecutive summarizer requests
	for i := range reqs {
		if !isSummaryRequest(reqs[i]) {
			continue
		}
		if n := len(groups); n > 0 && groups[n-1][len(groups[n-1])-1] == i-1 {
			groups[n-1] = append(groups[n-1], i)
		} else {
			groups = append(groups, []int{i})
		}
	}
	if len(groups) != len(cs) {
		t.Fatalf("%d groups of summarizer requests for %d compactions", len(groups), len(cs))
	}
	for gi, g := range groups {
		var text strings.Builder
		for _, i := range g {
			for _, m := range parseRequest(t, reqs[i]).conversation() {
				text.WriteString(m.text())
			}
		}
		wants := []string{"<conversation>", "[Assistant]: Reading notes/", "[Assistant tool calls]: read(path=\"notes/", "[Tool result]: n0"}
		if gi == 0 {
			// The cut falls inside the long tool loop: a split turn, with the
			// earlier exchange summarized and the turn's prefix summarized
			// on its own, in two summarizer requests.
			wants = append(wants, "[User]: hello", "[Assistant]: Hello, I can read notes.",
				"This is the PREFIX of a turn", "[User]: Read every notes file")
			if len(g) != 2 || !strings.Contains(cs[0]["summary"].(string), "**Turn Context (split turn):**") {
				t.Fatalf("first compaction is not a split turn: %d summarizer requests, summary %q", len(g), cs[0]["summary"])
			}
		} else {
			// A later compaction updates the previous summary.
			wants = append(wants, "<previous-summary>\n"+cs[gi-1]["summary"].(string))
		}
		for _, want := range wants {
			if !strings.Contains(text.String(), want) {
				t.Fatalf("summarizer requests %v lack %q:\n%.2000s", g, want, text.String())
			}
		}
		next := g[len(g)-1] + 1
		if next >= len(reqs) {
			t.Fatalf("no model request after compaction %d", gi)
		}
		checkCarriesCompaction(t, parseRequest(t, reqs[next]), branch, cs[gi])
	}
	t.Logf("%d compactions in a run of %d reads on an 8000-token window; %d model requests", len(cs), files, len(reqs))
	if !strings.Contains(cs[0]["summary"].(string), "CHECKPOINT-ALPHA") || !strings.Contains(cs[0]["summary"].(string), "<read-files>\nnotes/n01.txt") {
		t.Fatalf("summary lacks the summarizer's text or the read files: %q", cs[0]["summary"])
	}

	// $/progress begin, report and end for each compaction.
	var begins, reports, ends int
	for _, n := range s.Notifications("$/progress") {
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind    string `json:"kind"`
				Title   string `json:"title"`
				Message string `json:"message"`
			} `json:"value"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		switch {
		case p.Value.Kind == "begin" && p.Value.Title == "Compacting context" && p.Value.Message == "threshold":
			begins++
		case p.Value.Kind == "report" && strings.HasPrefix(p.Value.Message, "summarizing "):
			reports++
		case p.Value.Kind == "end" && p.Value.Message == "done":
			ends++
		}
	}
	if begins != len(cs) || reports != len(cs) || ends != len(cs) {
		t.Fatalf("$/progress: %d begin, %d report, %d end for %d compactions", begins, reports, ends, len(cs))
	}

	// session/state reports the accounting.
	if st.Tokens.Compactions != len(cs) || st.ContextWindow != 8000 || st.Tokens.ContextWindow != 8000 ||
		st.ContextTokens <= 0 || st.ContextTokens > 8000 || st.Tokens.ReserveTokens != 2048 {
		t.Fatalf("state after compaction: %+v", st)
	}

	// A new process reopens the session to the same context.
	s.call("shutdown", nil, nil)
	if err := s.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s, 0)
	s2 := e.start(startOpt{args: []string{"--yolo"}})
	s2.call("session/open", map[string]any{"path": st.Path}, nil)
	st2 := s2.state()
	if st2.MessageCount != st.MessageCount || st2.ContextWindow != 8000 || st2.Tokens.Compactions < 1 {
		t.Fatalf("after reopen: %+v\nbefore: %+v", st2, st)
	}
	if got, want := mustJSON(s2.entries()), mustJSON(branch); got != want {
		t.Fatalf("entries after reopen differ:\n got %.500s\nwant %.500s", got, want)
	}
	// And the next prompt sends the same context plus the new prompt.
	e.llm.Append(llmtest.Response{Match: "one more question", Text: "Sure."})
	before := len(e.llm.Requests())
	s2.prompt("one more question")
	s2.waitIdle()
	after := e.llm.Requests()
	if len(after) != before+1 {
		t.Fatalf("%d requests for one prompt", len(after)-before)
	}
	last := parseRequest(t, reqs[len(reqs)-1]).conversation()
	next := parseRequest(t, after[before]).conversation()
	if len(next) != len(last)+2 || next[0].text() != last[0].text() || next[len(next)-1].text() != "one more question" {
		t.Fatalf("context after reopen: %d messages (before the restart %d + answer + prompt)", len(next), len(last))
	}
}

func TestCompactionManualWithInstructionsAndSetAuto(t *testing.T) {
	var names []string
	for i := 1; i <= 8; i++ {
		names = append(names, fmt.Sprintf("notes/m%02d.txt", i))
	}
	script := append([]llmtest.Response{summaryResponse(), {Text: "Hello.", ChunkSize: 1 << 16}},
		readLoop(names, "Read all eight.")...)
	e := newEnv(t, script, llmtest.ModelSpec{ID: "m1", ContextWindow: 8000, MaxTokens: 1024})
	for i, n := range names {
		writeFile(t, filepath.Join(e.workspace, n), notesFile(fmt.Sprintf("m%02d", i+1), 2400))
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("hello")
	s.waitIdle()

	var auto struct {
		Enabled bool `json:"enabled"`
	}
	s.call("compaction/setAuto", map[string]any{"enabled": false}, &auto)
	if auto.Enabled {
		t.Fatalf("setAuto answered %+v", auto)
	}
	var raw map[string]any
	s.call("session/state", nil, &raw)
	if raw["autoCompaction"] != false {
		t.Fatalf("state autoCompaction %v", raw["autoCompaction"])
	}
	s.prompt("Read all the notes files.")
	st := s.waitIdle()
	if cs := compactionsOf(s.entries()); len(cs) != 0 {
		t.Fatalf("compacted with auto-compaction off: %v", cs)
	}
	for _, r := range e.llm.Requests() {
		if isSummaryRequest(r) {
			t.Fatal("a summarizer request with auto-compaction off")
		}
	}
	if st.ContextTokens <= st.ContextWindow-st.Tokens.ReserveTokens {
		t.Fatalf("the run did not cross the threshold (%d tokens, window %d): the test proves nothing", st.ContextTokens, st.ContextWindow)
	}

	// Manual compaction with custom instructions.
	var res struct {
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
		TokensBefore     int    `json:"tokensBefore"`
	}
	s.call("compaction/run", map[string]any{"customInstructions": "Focus on the FROBNICATE flag"}, &res)
	if !strings.Contains(res.Summary, "CHECKPOINT-ALPHA") || res.FirstKeptEntryID == "" || res.TokensBefore < st.ContextWindow-st.Tokens.ReserveTokens {
		t.Fatalf("compaction/run: %+v", res)
	}
	var sawFocus bool
	for _, r := range e.llm.Requests() {
		if isSummaryRequest(r) && strings.Contains(string(r), "Additional focus: Focus on the FROBNICATE flag") {
			sawFocus = true
		}
	}
	if !sawFocus {
		t.Fatal("the custom instructions are not in the summarizer request")
	}
	cs := compactionsOf(s.entries())
	if len(cs) != 1 || cs[0]["firstKeptEntryId"] != res.FirstKeptEntryID {
		t.Fatalf("compaction entries after compaction/run: %v", cs)
	}
	st2 := s.state()
	if st2.Tokens.Compactions != 1 || st2.ContextTokens >= st.ContextTokens || st2.MessageCount >= st.MessageCount {
		t.Fatalf("state after compaction/run: %+v (before %+v)", st2, st)
	}
	// setAuto is persisted: a new process keeps it off.
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
	s2 := e.start(startOpt{})
	s2.call("session/open", map[string]any{"path": st.Path}, nil)
	s2.call("session/state", nil, &raw)
	if raw["autoCompaction"] != false {
		t.Fatalf("autoCompaction after reopen: %v", raw["autoCompaction"])
	}
}

func TestCompactionFailedSummaryLeavesSessionUnchanged(t *testing.T) {
	var names []string
	for i := 1; i <= 8; i++ {
		names = append(names, fmt.Sprintf("notes/x%02d.txt", i))
	}
	fail := llmtest.Response{Match: summaryMatch, Repeat: true, Status: 500, Error: "summarizer is down", RetryAfterMs: 5}
	script := append([]llmtest.Response{fail, {Text: "Hello.", ChunkSize: 1 << 16}}, readLoop(names, "never reached")...)
	e := newEnv(t, script, llmtest.ModelSpec{ID: "m1", ContextWindow: 8000, MaxTokens: 1024})
	for i, n := range names {
		writeFile(t, filepath.Join(e.workspace, n), notesFile(fmt.Sprintf("x%02d", i+1), 2400))
	}
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{"harnessEvents": true}})
	s.prompt("hello")
	s.waitIdle()

	// Automatic, mid-loop: the run stops with a clear error; no compaction
	// entry, nothing half-written.
	s.prompt("Read all the notes files.")
	s.waitIdle()
	branch := s.entries()
	if cs := compactionsOf(branch); len(cs) != 0 {
		t.Fatalf("a compaction entry after a failed summary: %v", cs)
	}
	var last *llm.Message
	for i := len(branch) - 1; last == nil && i >= 0; i-- {
		last = entryMessage(t, branch[i])
	}
	if last == nil || last.Role != llm.RoleToolResult {
		t.Fatalf("the run should stop before the model call it could not make room for; last message %+v", last)
	}
	var sawError, sawEnd bool
	for _, n := range s.Notifications("harness/event") {
		var p struct {
			Event struct {
				Type  string `json:"type"`
				Error string `json:"error"`
			} `json:"event"`
		}
		_ = json.Unmarshal(n.Params, &p)
		if p.Event.Type == "error" && strings.Contains(p.Event.Error, "compaction failed (the session is unchanged)") && strings.Contains(p.Event.Error, "summarizer is down") {
			sawError = true
		}
		if p.Event.Type == "compaction_end" && strings.Contains(p.Event.Error, "summarizer is down") {
			sawEnd = true
		}
	}
	if !sawError || !sawEnd {
		t.Fatalf("error event %v, compaction_end with the error %v:\n%s", sawError, sawEnd, s.allNotifications())
	}
	s.waitFor("display error", func() bool {
		v, _ := s.Display()
		return slices.ContainsFunc(v.State.Errors, func(e protocol.ErrorBanner) bool { return strings.Contains(e.Text, "summarizer is down") })
	})
	var progressFailed bool
	for _, n := range s.Notifications("$/progress") {
		if strings.Contains(string(n.Params), `"kind":"end"`) && strings.Contains(string(n.Params), "failed: ") {
			progressFailed = true
		}
	}
	if !progressFailed {
		t.Fatal("no $/progress end reporting the failure")
	}

	// Manual: an error answer, and not one byte added to the session.
	path := s.state().Path
	size := len(readFile(t, path))
	err := s.try("compaction/run", map[string]any{}, nil)
	if err == nil || !strings.Contains(err.Error(), "summarizer is down") || !strings.Contains(err.Error(), "unchanged") {
		t.Fatalf("compaction/run with a failing summarizer: %v", err)
	}
	if got := s.entries(); mustJSON(got) != mustJSON(branch) {
		t.Fatalf("entries changed by a failed compaction")
	}
	if n := len(readFile(t, path)); n != size {
		t.Fatalf("session file grew from %d to %d bytes", size, n)
	}
	if st := s.state(); st.Phase != "idle" || st.Tokens.Compactions != 0 {
		t.Fatalf("state after the failures: %+v", st)
	}
}

func TestCompactionBranchSummaryOnNavigate(t *testing.T) {
	const branchSummary = "## Goal\nTried the BRANCH-BETA approach.\n\n## Progress\n- [x] Explored it"
	e := newEnv(t, []llmtest.Response{
		{Match: branchSummaryMatch, Repeat: true, Text: branchSummary},
		{Text: "first answer"},
		{Text: "second answer, the abandoned one"},
		{Match: "after coming back", Text: "third answer"},
	}, llmtest.ModelSpec{ID: "m1", ContextWindow: 8000, MaxTokens: 1024})
	s := e.start(startOpt{})
	s.prompt("first question")
	s.waitIdle()
	s.prompt("second question, try BRANCH-BETA")
	s.waitIdle()
	var firstAnswer, secondUser string
	for _, en := range s.entries() {
		m := entryMessage(t, en)
		switch {
		case m != nil && m.Role == llm.RoleAssistant && m.Text() == "first answer":
			firstAnswer = en["id"].(string)
		case m != nil && m.Role == llm.RoleUser && strings.HasPrefix(m.Text(), "second question"):
			secondUser = en["id"].(string)
		}
	}
	var nav struct {
		LeafID         string `json:"leafId"`
		SummaryEntryID string `json:"summaryEntryId"`
	}
	s.call("session/navigate", map[string]any{"targetId": firstAnswer, "summarize": true, "customInstructions": "Mention BETA", "label": "came back"}, &nav)
	if nav.SummaryEntryID == "" || nav.LeafID == "" {
		t.Fatalf("navigate: %+v", nav)
	}
	// The summarizer saw the abandoned branch.
	var sawBranch bool
	for _, r := range e.llm.Requests() {
		if strings.Contains(string(r), branchSummaryMatch) && strings.Contains(string(r), "second question, try BRANCH-BETA") &&
			strings.Contains(string(r), "second answer, the abandoned one") && strings.Contains(string(r), "Mention BETA") {
			sawBranch = true
		}
	}
	if !sawBranch {
		t.Fatal("no branch summary request with the abandoned branch and the instructions")
	}
	var got struct {
		Entries []map[string]any `json:"entries"`
	}
	s.call("session/entries", map[string]any{"ids": []string{nav.SummaryEntryID}}, &got)
	if len(got.Entries) != 1 {
		t.Fatalf("entries: %+v", got)
	}
	bs := got.Entries[0]
	if bs["type"] != "branch_summary" || bs["parentId"] != firstAnswer || !strings.Contains(bs["summary"].(string), "BRANCH-BETA") {
		t.Fatalf("branch summary entry: %v", bs)
	}
	// The tree: the summary hangs from the first answer beside the
	// abandoned second question, is on the branch and carries the label.
	var tree struct {
		LeafID string           `json:"leafId"`
		Nodes  []map[string]any `json:"nodes"`
	}
	s.call("session/tree", map[string]any{"root": firstAnswer}, &tree)
	if tree.LeafID != nav.LeafID {
		t.Fatalf("tree: leaf %s, want %s", tree.LeafID, nav.LeafID)
	}
	kids := tree.Nodes
	sum := findNode(kids, nav.SummaryEntryID)
	if sum == nil || sum["parentId"] != firstAnswer || sum["onBranch"] != true || sum["label"] != "came back" {
		t.Fatalf("the summary is not a labelled child of the first answer on the branch: %v", kids)
	}
	if old := findNode(kids, secondUser); old == nil || old["onBranch"] == true || old["parentId"] != firstAnswer {
		t.Fatalf("the abandoned question is not beside the summary: %v", kids)
	}
	// The next model request carries the branch summary, not the branch.
	s.prompt("after coming back, go on")
	s.waitIdle()
	reqs := e.llm.Requests()
	conv := parseRequest(t, reqs[len(reqs)-1]).conversation()
	var texts []string
	for _, m := range conv {
		texts = append(texts, m.role()+":"+m.text())
	}
	want := []string{"user:first question", "assistant:first answer", "user:" + llm.BranchSummaryPrefix + bs["summary"].(string) + llm.BranchSummarySuffix, "user:after coming back, go on"}
	if !slices.Equal(texts, want) {
		t.Fatalf("request after navigate:\n got %q\nwant %q", texts, want)
	}
}

func (m chatMessage) role() string { return m.Role }

func findNode(nodes []map[string]any, id string) map[string]any {
	for _, n := range nodes {
		if n["id"] == id {
			return n
		}
	}
	return nil
}
