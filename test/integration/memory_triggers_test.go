package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// memoryBuffered waits until the background observer is done and returns
// how many chunks are buffered (observed, not yet active).
func memoryBuffered(t *testing.T, s *server) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var show struct {
			Status struct {
				Observing      bool `json:"observing"`
				BufferedChunks int  `json:"bufferedChunks"`
			} `json:"status"`
		}
		s.call("memory/show", nil, &show)
		if !show.Status.Observing {
			return show.Status.BufferedChunks
		}
		if time.Now().After(deadline) {
			t.Fatal("the background observer did not finish")
		}
	}
}

// activations lists the reasons of the session's activation records.
func activations(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, op := range memoryRecords(readSessionFile(t, path)) {
		if r, ok := strings.CutPrefix(op, "activate:"); ok {
			out = append(out, r)
		}
	}
	return out
}

// runUntilBuffered runs workload turns until a chunk is buffered, with no
// activation yet (the raw history is under the observe threshold).
func runUntilBuffered(t *testing.T, e *env, s *server) (turns int, st state) {
	t.Helper()
	for turns = 1; turns <= 2; turns++ {
		e.llm.Append(windowTurn(turns)...)
		s.prompt(windowPrompt(turns))
		st = s.waitIdle()
		if memoryBuffered(t, s) > 0 {
			break
		}
	}
	if got := activations(t, st.Path); len(got) != 0 {
		t.Fatalf("activations before the trigger: %v", got)
	}
	if memoryBuffered(t, s) == 0 {
		t.Fatal("no chunk buffered after two tool-heavy turns on a 40k window")
	}
	return turns, st
}

// TestMemoryIdleTriggerActivates: with a per-model idle override
// (memory.idleAfter), a prompt after a longer pause activates the buffered
// chunks below the threshold, recorded with reason "idle".
func TestMemoryIdleTriggerActivates(t *testing.T) {
	e := newEnv(t, memoryScript(), llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokenCounter(llmtest.RealisticTokens)
	writeWindowFiles(t, e.workspace, 4)
	settings := filepath.Join(e.home, "pi-lsp.json")
	const idle = 2 * time.Second
	writeFile(t, settings, `{"memory": {"mode": "observational", "idleAfter": {"fake/m1": "2s"}}}`)
	s := e.start(startOpt{args: []string{"--yolo"}, caps: map[string]any{}, extraEnv: []string{"PI_LSP_SETTINGS=" + settings}})
	n, _ := runUntilBuffered(t, e, s)

	// The provider's cache is cold after the pause: the next model call
	// activates what is buffered although the threshold is not reached.
	time.Sleep(idle + idle/2)
	n++
	e.llm.Append(windowTurn(n)...)
	s.prompt(windowPrompt(n))
	st := s.waitIdle()
	got := activations(t, st.Path)
	if len(got) == 0 || got[0] != "idle" {
		t.Fatalf("activations after a pause longer than idleAfter: %v, want the first one idle", got)
	}
	// The request after the pause already carries the observations.
	reqs := e.llm.Requests()
	var first []byte
	for _, b := range reqs {
		if !isMemoryRequest(b) && strings.Contains(string(b), windowPrompt(n)) {
			first = b
			break
		}
	}
	if first == nil || !strings.Contains(string(first), obsMarker) {
		t.Fatal("the first request after the pause does not carry the observations")
	}
}

// TestMemoryProviderChangeTriggers: model/set to a model of another
// provider activates the buffered chunks at the next model call, recorded
// with reason "provider" (the new provider has nothing cached).
func TestMemoryProviderChangeTriggers(t *testing.T) {
	e := newEnv(t, memoryScript(), llmtest.ModelSpec{ID: "m1", Name: "Local 40k", ContextWindow: windowTokens, MaxTokens: 4096})
	e.llm.SetTokenCounter(llmtest.RealisticTokens)
	// A second provider on the same fake server.
	var doc map[string]map[string]map[string]any
	raw, err := os.ReadFile(e.models)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	other := map[string]any{}
	for k, v := range doc["providers"][llmtest.ProviderName] {
		other[k] = v
	}
	doc["providers"]["other"] = other
	raw, _ = json.Marshal(doc)
	writeFile(t, e.models, string(raw))
	writeWindowFiles(t, e.workspace, 4)
	s := e.start(startOpt{args: []string{"--yolo", "--memory", "observational"}, caps: map[string]any{}})
	n, _ := runUntilBuffered(t, e, s)

	s.call("model/set", map[string]any{"model": "other/m1"}, nil)
	n++
	e.llm.Append(windowTurn(n)...)
	s.prompt(windowPrompt(n))
	st := s.waitIdle()
	got := activations(t, st.Path)
	if len(got) == 0 || got[0] != "provider" {
		t.Fatalf("activations after a change of provider: %v, want the first one provider", got)
	}
}
