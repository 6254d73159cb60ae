package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// Compacted sessions cross between pi-lsp and the real pi 0.73.1 (issue 6).

// piMessages returns pi's get_messages for its current session.
func piMessages(ctx context.Context, t *testing.T, pi *pitest.RPC) []map[string]any {
	t.Helper()
	data, err := pi.Call(ctx, map[string]any{"type": "get_messages"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	return got.Messages
}

// piState is the part of pi's get_state the tests read.
type piState struct {
	MessageCount          int    `json:"messageCount"`
	SessionFile           string `json:"sessionFile"`
	IsStreaming           bool   `json:"isStreaming"`
	IsCompacting          bool   `json:"isCompacting"`
	AutoCompactionEnabled bool   `json:"autoCompactionEnabled"`
}

func getPiState(ctx context.Context, t *testing.T, pi *pitest.RPC) piState {
	t.Helper()
	data, err := pi.Call(ctx, map[string]any{"type": "get_state"})
	if err != nil {
		t.Fatal(err)
	}
	var st piState
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// piPrompt sends a prompt and waits until pi is quiet again: the run is
// over and no compaction is going (pi compacts after agent_end).
func piPrompt(ctx context.Context, t *testing.T, pi *pitest.RPC, text string) {
	t.Helper()
	if _, err := pi.Call(ctx, map[string]any{"type": "prompt", "message": text}); err != nil {
		t.Fatal(err)
	}
	if _, err := pi.WaitFor(ctx, "agent_end"); err != nil {
		t.Fatal(err)
	}
	for {
		st := getPiState(ctx, t, pi)
		if !st.IsStreaming && !st.IsCompacting {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("pi did not settle: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// piEnv is pitest.Env with pi's models.json rewritten to hold models.
func piEnv(t *testing.T, e *env, models ...llmtest.ModelSpec) []string {
	t.Helper()
	envv := pitest.Env(t, e.llm.BaseURL())
	home := ""
	for _, kv := range envv {
		if strings.HasPrefix(kv, "HOME=") {
			home = strings.TrimPrefix(kv, "HOME=")
		}
	}
	if len(models) > 0 {
		if err := llmtest.WriteModelsJSONFile(filepath.Join(home, ".pi", "agent", "models.json"), e.llm.BaseURL(), models...); err != nil {
			t.Fatal(err)
		}
	}
	return envv
}

func TestInteropPiOpensSessionPiLspCompacted(t *testing.T) {
	pitest.Bin(t)
	var names []string
	for i := 1; i <= 10; i++ {
		names = append(names, fmt.Sprintf("notes/p%02d.txt", i))
	}
	spec := llmtest.ModelSpec{ID: "m1", Name: "Small", ContextWindow: 8000, MaxTokens: 1024}
	script := append([]llmtest.Response{summaryResponse(), {Text: "Hello.", ChunkSize: 1 << 16}}, readLoop(names, "Read all ten.")...)
	e := newEnv(t, script, spec)
	for i, n := range names {
		writeFile(t, filepath.Join(e.workspace, n), notesFile(fmt.Sprintf("p%02d", i+1), 3000))
	}
	s := e.start(startOpt{args: []string{"--yolo"}})
	s.prompt("hello")
	s.waitIdle()
	s.prompt("Read every notes file.")
	st := s.waitIdle()
	cs := compactionsOf(s.entries())
	if len(cs) == 0 || st.Tokens.Compactions == 0 {
		t.Fatalf("pi-lsp did not compact: %+v", st)
	}
	latest := cs[len(cs)-1]["summary"].(string)
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)

	before := readFile(t, st.Path)
	pi := pitest.Start(t, piEnv(t, e, spec), e.workspace, "--session", st.Path, "--provider", "fake", "--model", "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	msgs := piMessages(ctx, t, pi)
	pst := getPiState(ctx, t, pi)
	if len(msgs) != st.MessageCount || pst.MessageCount != st.MessageCount || pst.SessionFile != st.Path {
		t.Fatalf("pi sees %d messages (state %+v), pi-lsp %d", len(msgs), pst, st.MessageCount)
	}
	t.Logf("pi-lsp compacted %d times; pi opens the session with %d messages, as pi-lsp", len(cs), len(msgs))
	if msgs[0]["role"] != "compactionSummary" || msgs[0]["summary"] != latest {
		t.Fatalf("pi's first message is not pi-lsp's latest summary: %v", msgs[0])
	}
	if last := msgs[len(msgs)-1]; last["role"] != "assistant" || !strings.Contains(mustJSON(last["content"]), "Read all ten.") {
		t.Fatalf("pi's last message: %v", last)
	}
	if after := readFile(t, st.Path); after != before {
		t.Fatalf("pi changed the session on open")
	}
}

func TestInteropPiCompactedSessionOpensInPiLsp(t *testing.T) {
	pitest.Bin(t)
	const turns = 8
	e := newEnv(t, []llmtest.Response{summaryResponse()}, llmtest.ModelSpec{ID: "m1", Name: "M1"})
	writeWindowFiles(t, e.workspace, turns)
	pi := pitest.Start(t, piEnv(t, e, llmtest.ModelSpec{ID: "m1", Name: "M1"}), e.workspace, "--provider", "fake", "--model", "m1")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for i := 1; i <= turns; i++ {
		e.llm.Append(windowTurn(i)...)
		piPrompt(ctx, t, pi, windowPrompt(i))
	}
	data, err := pi.Call(ctx, map[string]any{"type": "compact", "customInstructions": "Keep the file names"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Summary          string `json:"summary"`
		FirstKeptEntryID string `json:"firstKeptEntryId"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Summary, "CHECKPOINT-ALPHA") || res.FirstKeptEntryID == "" {
		t.Fatalf("pi's compact: %s", data)
	}
	var sawFocus bool
	for _, r := range e.llm.Requests() {
		sawFocus = sawFocus || (isSummaryRequest(r) && strings.Contains(string(r), "Keep the file names"))
	}
	if !sawFocus {
		t.Fatal("pi's summarizer request is not in the fake's log")
	}
	msgs := piMessages(ctx, t, pi)
	pst := getPiState(ctx, t, pi)
	t.Logf("pi compacted %d turns (%d messages) to %d messages", turns, 4*turns, len(msgs))
	if msgs[0]["role"] != "compactionSummary" || len(msgs) >= 4*turns {
		t.Fatalf("pi did not compact its context: %d messages, first %v", len(msgs), msgs[0]["role"])
	}
	if err := pi.Close(); err != nil {
		t.Fatalf("closing pi: %v (stderr: %s)", err, pi.Stderr())
	}

	// pi-lsp opens it: the same context.
	s := e.start(startOpt{})
	s.call("session/open", map[string]any{"path": pst.SessionFile}, nil)
	st := s.state()
	if st.MessageCount != len(msgs) || st.Tokens.Compactions != 1 {
		t.Fatalf("pi-lsp sees %d messages (%+v), pi %d", st.MessageCount, st, len(msgs))
	}
	var entrySummary string
	for _, en := range s.entries() {
		if en["type"] == "compaction" {
			entrySummary, _ = en["summary"].(string)
		}
	}
	if entrySummary != res.Summary {
		t.Fatalf("compaction entry summary %q, pi said %q", entrySummary, res.Summary)
	}
	// The next model request is pi's context plus the prompt: the summary
	// first, rendered as pi renders it, then pi's kept messages.
	e.llm.Append(llmtest.Response{Match: "after pi compacted", Text: "Continuing."})
	s.prompt("after pi compacted, go on")
	s.waitIdle()
	reqs := e.llm.Requests()
	conv := parseRequest(t, reqs[len(reqs)-1]).conversation()
	if len(conv) != len(msgs)+1 || conv[0].text() != llm.CompactionSummaryPrefix+res.Summary+llm.CompactionSummarySuffix {
		t.Fatalf("request after opening pi's compacted session: %d messages (pi had %d), first %.200q", len(conv), len(msgs), conv[0].text())
	}
	for i, m := range msgs[1:] {
		want := map[string]string{"user": "user", "assistant": "assistant", "toolResult": "tool"}[m["role"].(string)]
		if conv[i+1].Role != want {
			t.Fatalf("message %d: pi-lsp sent %s, pi's context has %s", i+1, conv[i+1].Role, m["role"])
		}
	}
	if _, err := os.Stat(pst.SessionFile); err != nil {
		t.Fatal(err)
	}
}
