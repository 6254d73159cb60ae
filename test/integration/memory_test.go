package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/internal/pitest"
	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// Observer and reflector requests are told apart by their system prompts.
const (
	observerMatch  = "memory observer of a coding agent"
	reflectorMatch = "memory reflector of a coding agent"
	obsMarker      = "OBSERVED-NOTES-7Q"
)

func isMemoryRequest(b []byte) bool {
	s := string(b)
	return strings.Contains(s, observerMatch) || strings.Contains(s, reflectorMatch)
}

// The observer's answer: Mastra's line format, a current task and a
// suggested continuation, with a marker the tests look for.
var observerAnswer = "<observations>\nDate: Dec 1, 2026\n" +
	"* 🔴 (10:00) User asked to read the numbered source files one per turn and report on each (" + obsMarker + ")\n" +
	"* 🟡 (10:01) Agent read the next files; each holds about 200 lines of the form 'fNNN line NNN: ...'\n" +
	"  * -> nothing unusual in them so far\n" +
	"* ✅ (10:02) Reported on the files read\n</observations>\n" +
	"<current-task>\nRead the next numbered file and report on it.\n</current-task>\n" +
	"<suggested-response>\nRead the next file the user names.\n</suggested-response>"

var reflectorAnswer = "<observations>\nDate: Dec 1, 2026\n" +
	"* 🔴 (10:00) User asked to read the numbered source files one per turn (" + obsMarker + ")\n" +
	"* ✅ (10:02) Read and reported on every file so far; all hold numbered lines\n</observations>"

func memoryScript() []llmtest.Response {
	return []llmtest.Response{
		{Match: observerMatch, Repeat: true, Text: observerAnswer, ChunkSize: 1 << 16},
		{Match: reflectorMatch, Repeat: true, Text: reflectorAnswer, ChunkSize: 1 << 16},
	}
}

// records returns the memory custom entries of a session file.
func memoryRecords(file []map[string]any) (ops []string) {
	for _, e := range file {
		if e["type"] != "custom" {
			continue
		}
		switch e["customType"] {
		case "pi-lsp/observations":
			d, _ := e["data"].(map[string]any)
			ops = append(ops, fmt.Sprintf("%v:%v", d["op"], d["reason"]))
		case "pi-lsp/reflection":
			ops = append(ops, "reflection")
		}
	}
	return ops
}

// runMemoryWorkload runs the 40k-window read-a-file-per-turn workload in
// observational mode over the real binary.
func runMemoryWorkload(t *testing.T, turns int, configure map[string]any) (*env, *server, state) {
	e := newEnv(t, memoryScript(), llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokenCounter(llmtest.RealisticTokens)
	writeWindowFiles(t, e.workspace, turns)
	s := e.start(startOpt{args: []string{"--yolo", "--memory", "observational"}, caps: map[string]any{}})
	if configure != nil {
		s.call("memory/configure", configure, nil)
	}
	var st state
	for i := 1; i <= turns; i++ {
		e.llm.Append(windowTurn(i)...)
		s.prompt(windowPrompt(i))
		st = s.waitIdle()
	}
	if p := e.llm.Pending(); p != 0 {
		t.Fatalf("%d scripted answers were not used: the run went off script", p)
	}
	return e, s, st
}

func TestMemoryWorkload30Turns(t *testing.T) {
	const turns = 30
	e, s, st := runMemoryWorkload(t, turns, nil)
	reqs := e.llm.Requests()
	var observer, main int
	firstObs := -1
	maxTokens := 0
	var lastMain []byte
	for i, b := range reqs {
		n := llmtest.RealisticTokens(b)
		maxTokens = max(maxTokens, n)
		if n > windowTokens {
			t.Errorf("request %d: %d tokens, over the %d window", i, n, windowTokens)
		}
		switch {
		case strings.Contains(string(b), observerMatch):
			observer++
			if firstObs < 0 {
				firstObs = i
			}
		case strings.Contains(string(b), reflectorMatch):
		default:
			main++
			lastMain = b
		}
	}
	if observer == 0 {
		t.Fatal("no observer call in 30 tool-heavy turns on a 40k window")
	}
	// The later main requests carry the observation text.
	carry := 0
	for _, b := range reqs[firstObs+1:] {
		if !isMemoryRequest(b) && strings.Contains(string(b), obsMarker) {
			carry++
		}
	}
	if carry == 0 || !strings.Contains(string(lastMain), obsMarker) {
		t.Fatalf("no main request after the first observation carries it (%d of them do)", carry)
	}
	// Buffered ahead: chunks are recorded before their activation, and no
	// observation happened on the hot path.
	ops := memoryRecords(readSessionFile(t, st.Path))
	joined := strings.Join(ops, ",")
	if !strings.HasPrefix(joined, "buffer:") || !strings.Contains(joined, "activate:threshold") || strings.Contains(joined, ":sync") {
		t.Fatalf("memory records: %v", ops)
	}
	t.Logf("30 turns: %d main requests, %d observer calls, max request %d tokens (realistic count), records %d, context %d tokens",
		main, observer, maxTokens, len(ops), st.ContextTokens)

	// memory/show and the display's memory field.
	var show struct {
		Settings struct {
			Mode string `json:"mode"`
		} `json:"settings"`
		Observations string `json:"observations"`
		CurrentTask  string `json:"currentTask"`
		Status       struct {
			ObservedMessages int `json:"observedMessages"`
			ObserverCalls    int `json:"observerCalls"`
		} `json:"status"`
	}
	s.call("memory/show", nil, &show)
	if show.Settings.Mode != "observational" || !strings.Contains(show.Observations, obsMarker) || show.CurrentTask == "" || show.Status.ObservedMessages == 0 {
		t.Fatalf("memory/show: %+v", show)
	}
	var snap struct {
		State struct {
			Memory *struct {
				Mode              string `json:"mode"`
				ObservationTokens int    `json:"observationTokens"`
			} `json:"memory"`
		} `json:"state"`
	}
	s.call("display/snapshot", nil, &snap)
	if m := snap.State.Memory; m == nil || m.Mode != "observational" || m.ObservationTokens == 0 {
		t.Fatalf("display memory field: %+v", m)
	}

	// Reopen in a new process (no --memory flag: the setting comes from the
	// session) and check the context is the same.
	obsMsg := observationMessage(t, lastMain)
	s.call("shutdown", nil, nil)
	_ = s.Notify("exit", nil)
	waitExit(t, s, 0)
	s2 := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}, initOpts: map[string]any{"session": st.Path}})
	var show2 = show
	s2.call("memory/show", nil, &show2)
	if show2.Settings.Mode != "observational" || show2.Observations != show.Observations || show2.CurrentTask != show.CurrentTask {
		t.Fatalf("after reopening, memory/show differs:\n%+v\nvs\n%+v", show2, show)
	}
	e.llm.Append(llmtest.Response{Text: "Done.", ChunkSize: 1 << 16})
	s2.prompt("One more thing: say done.")
	s2.waitIdle()
	reqs = e.llm.Requests()
	after := reqs[len(reqs)-1]
	if got := observationMessage(t, after); got != obsMsg {
		t.Fatalf("the reopened session's observations differ from the last request's:\n%s\nvs\n%s", got, obsMsg)
	}
	if !strings.HasPrefix(mainMessages(t, after), mainMessages(t, lastMain)[:len(mainMessages(t, lastMain))/2]) {
		t.Fatal("the reopened session's request does not share the prefix of the last one")
	}
	s2.call("shutdown", nil, nil)
	_ = s2.Notify("exit", nil)
	waitExit(t, s2, 0)

	// pi opens the session and sees the raw history: every message of
	// the 30 turns (pitest skips this when pi is not installed).
	if n := len(pitest.BuildContext(t, st.Path)); n < 4*turns {
		t.Fatalf("pi sees %d messages, want the raw history of %d turns", n, turns)
	}
}

// observationMessage is the text of the request's observation message.
func observationMessage(t *testing.T, body []byte) string {
	t.Helper()
	for _, m := range parseRequest(t, body).Messages {
		if txt := m.text(); strings.Contains(txt, "<observations>") {
			return txt
		}
	}
	t.Fatal("the request has no observation message")
	return ""
}

// mainMessages is the request's messages as JSON.
func mainMessages(t *testing.T, body []byte) string {
	t.Helper()
	var r struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	return string(r.Messages)
}

func TestMemoryConfigureRejectsBadInput(t *testing.T) {
	e := newEnv(t, nil)
	s := e.start(startOpt{})
	for _, p := range []map[string]any{
		{"mode": "summary"}, {"mode": "observational", "observeTokens": -1}, {"mode": "observational", "reflectTokens": "many"},
		{"mode": "observational", "model": "nope/nope"}, {"mode": "observational", "failurePolicy": "ignore"},
	} {
		err := s.try("memory/configure", p, nil)
		var re *rpctest.Error
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("memory/configure %v: %v, want -32602", p, err)
		}
	}
	var res struct {
		Settings struct {
			Mode string `json:"mode"`
		} `json:"settings"`
		Budget struct {
			ObserveTokens int `json:"observeTokens"`
		} `json:"budget"`
		Notice string `json:"notice"`
	}
	s.call("memory/configure", map[string]any{"mode": "observational", "observeTokens": 10000000, "model": "fake/m2"}, &res)
	if res.Settings.Mode != "observational" || res.Notice == "" || res.Budget.ObserveTokens >= 10000000 {
		t.Fatalf("an oversized threshold is not clamped with a notice: %+v", res)
	}
	e.llm.Append(llmtest.Response{Text: "yes"})
	s.prompt("still serving?")
	s.waitIdle()
}

func TestMemoryFailingObserverAbortsCleanly(t *testing.T) {
	script := []llmtest.Response{{Match: observerMatch, Repeat: true, Status: 500, Error: "observer is down", RetryAfterMs: 1}}
	e := newEnv(t, script, llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokenCounter(llmtest.RealisticTokens)
	writeWindowFiles(t, e.workspace, 12)
	s := e.start(startOpt{args: []string{"--yolo", "--memory", "observational"}})
	var st state
	aborted := 0
	for i := 1; i <= 12 && aborted == 0; i++ {
		e.llm.Append(windowTurn(i)...)
		s.prompt(windowPrompt(i))
		st = s.waitIdle()
		if strings.Contains(s.allNotifications(), "the observer failed (the session is unchanged)") {
			aborted = i
		}
	}
	if aborted == 0 {
		// The last turn's frame may still be on its way.
		s.waitShown("the observer failed (the session is unchanged)", "the run never aborted although the observer always fails")
		aborted = 12
	}
	s.waitShown("observer is down", "the error does not say why the observer failed")
	for _, op := range memoryRecords(readSessionFile(t, st.Path)) {
		t.Fatalf("a failing observer left a memory record: %s", op)
	}
	t.Logf("the run aborted at turn %d", aborted)
	// The server keeps serving.
	if st := s.state(); st.IsRunning {
		t.Fatal("still running")
	}
}

// TestMemoryWorkload150Turns is the benchmark workload (scripts/bench-memory.sh):
// 150 turns, observational and compaction mode, cache economy measured on
// the request log. It runs only with PI_LSP_BENCH_MEMORY=1.
func TestMemoryWorkload150Turns(t *testing.T) {
	if os.Getenv("PI_LSP_BENCH_MEMORY") != "1" {
		t.Skip("set PI_LSP_BENCH_MEMORY=1 (scripts/bench-memory.sh)")
	}
	turns := windowTurns
	if n, err := strconv.Atoi(os.Getenv("PI_LSP_BENCH_TURNS")); err == nil && n > 0 {
		turns = n
	}
	var configure map[string]any
	if v := os.Getenv("PI_LSP_BENCH_OBSERVE"); v != "" {
		n, _ := strconv.Atoi(v)
		configure = map[string]any{"mode": "observational", "observeTokens": n}
	}
	if os.Getenv("PI_LSP_BENCH_SHARE") == "0" {
		if configure == nil {
			configure = map[string]any{"mode": "observational"}
		}
		configure["shareTokenBudget"] = false
	}
	start := time.Now()
	e, _, _ := runMemoryWorkload(t, turns, configure)
	t.Logf("observational workload: %s wall=%s", cacheEconomy(e.llm.Requests(), turns, isMemoryRequest), time.Since(start).Round(time.Millisecond))

	ec := newEnv(t, []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}},
		llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	ec.llm.SetTokenCounter(llmtest.RealisticTokens)
	writeWindowFiles(t, ec.workspace, turns)
	s := ec.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}})
	start = time.Now()
	for i := 1; i <= turns; i++ {
		ec.llm.Append(windowTurn(i)...)
		s.prompt(windowPrompt(i))
		s.waitIdle()
	}
	t.Logf("compaction workload: %s wall=%s", cacheEconomy(ec.llm.Requests(), turns, isSummaryRequest), time.Since(start).Round(time.Millisecond))
}

// TestMemoryWorkloadPi runs the same workload against pi 0.73.1 for the
// comparison (PI_LSP_BENCH_PI=1).
func TestMemoryWorkloadPi(t *testing.T) {
	if os.Getenv("PI_LSP_BENCH_PI") != "1" {
		t.Skip("set PI_LSP_BENCH_PI=1 (scripts/bench-memory.sh)")
	}
	pitest.Bin(t)
	turns := windowTurns
	if n, err := strconv.Atoi(os.Getenv("PI_LSP_BENCH_TURNS")); err == nil && n > 0 {
		turns = n
	}
	spec := llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096}
	e := newEnv(t, []llmtest.Response{{Match: summaryMatch, Repeat: true, Text: windowSummary, ChunkSize: 1 << 16}}, spec)
	e.llm.SetTokenCounter(llmtest.RealisticTokens)
	writeWindowFiles(t, e.workspace, turns)
	pi := pitest.Start(t, piEnv(t, e, spec), e.workspace, "--provider", "fake", "--model", "m1", "--no-skills", "--no-context-files")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	for i := 1; i <= turns; i++ {
		e.llm.Append(windowTurn(i)...)
		piPrompt(ctx, t, pi, windowPrompt(i))
	}
	t.Logf("pi workload: %s wall=%s", cacheEconomy(e.llm.Requests(), turns, isSummaryRequest), time.Since(start).Round(time.Millisecond))
}
