package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// projKey is an sk-proj-… token the model streams beside the env secret.
const projKey = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"

// parallelScript: one round per pad, each the parent calling two explore
// subagents that stream at once (AwaitInFlight 2), in chunks of 3 and 4
// characters offset by the pad, so that over the rounds a chunk boundary
// falls at every position of each secret in each child, while the other
// child's chunks interleave with them.
func parallelScript(rounds int) ([]llmtest.Response, string) {
	const chunk = 4
	line := func(pad int) string {
		return strings.Repeat("x", pad) + " the key is " + envSecret + " and the token is " + projKey + " end"
	}
	var script []llmtest.Response
	for r := range rounds {
		a, b := fmt.Sprintf("TASK-%d-A", r), fmt.Sprintf("TASK-%d-B", r)
		script = append(script,
			llmtest.Response{Match: fmt.Sprintf("round %d go", r), ToolCalls: []llmtest.ToolCall{
				subagentCall(fmt.Sprintf("r%da", r), map[string]any{"agent": "explore", "task": a}),
				subagentCall(fmt.Sprintf("r%db", r), map[string]any{"agent": "explore", "task": b}),
			}},
			llmtest.Response{Match: a, AwaitInFlight: 2, Text: line(r%chunk) + fmt.Sprintf(" DONE-%d-A", r), ChunkSize: chunk, ChunkDelayMs: 15},
			llmtest.Response{Match: b, AwaitInFlight: 2, Text: line((r+2)%chunk) + fmt.Sprintf(" DONE-%d-B", r), ChunkSize: chunk - 1, ChunkDelayMs: 11},
			llmtest.Response{Match: fmt.Sprintf("DONE-%d-B", r), Text: fmt.Sprintf("round %d over", r)},
		)
	}
	return script, " the key is •••••• and the token is •••••• end"
}

// TestParallelSubagentSecretsStayMasked: over the real binary, two
// subagents stream at once, each an environment secret and an sk-proj-…
// token split at every offset and interleaved with the other's chunks. No
// byte the client read, no applied display state and no joined per-stream
// delta sequence (harness/event subagent_event message_updates, per
// subagent tool call, content index and kind) contains either secret; each
// stream's joined deltas show the masked line; the model still gets the
// real values.
func TestParallelSubagentSecretsStayMasked(t *testing.T) {
	const rounds = 4
	script, masked := parallelScript(rounds)
	e := newEnv(t, script)
	s := e.start(startOpt{extraEnv: []string{"MY_SERVICE_API_KEY=" + envSecret}, caps: map[string]any{"harnessEvents": true}})
	for r := range rounds {
		s.prompt(fmt.Sprintf("round %d go", r))
		s.waitIdle()
	}
	if e.llm.Pending() != 0 {
		t.Fatalf("%d scripted responses unused", e.llm.Pending())
	}
	model := bytes.Join(e.llm.Requests(), nil)
	if !bytes.Contains(model, []byte(envSecret)) || !bytes.Contains(model, []byte(projKey)) {
		t.Fatal("the model's requests must carry the subagents' answers with the real values")
	}
	got := s.Received()
	for _, secret := range []string{envSecret, projKey} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Fatalf("%q crossed the wire: …%s…", secret, got[max(0, i-300):min(len(got), i+100)])
		}
	}

	// Each stream's deltas, joined as a client would.
	streams := map[string]string{}
	interleaved := 0
	last := ""
	for _, n := range s.Notifications("harness/event") {
		var p struct {
			Event struct {
				Type     string `json:"type"`
				Subagent *struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"subagent"`
				Child *struct {
					Type         string `json:"type"`
					DeltaKind    string `json:"deltaKind"`
					ContentIndex int    `json:"contentIndex"`
					Delta        string `json:"delta"`
				} `json:"child"`
			} `json:"event"`
		}
		if json.Unmarshal(n.Params, &p) != nil || p.Event.Type != "subagent_event" || p.Event.Child == nil || p.Event.Child.Type != "message_update" || p.Event.Subagent == nil {
			continue
		}
		k := fmt.Sprintf("%s/%s/%d", p.Event.Subagent.ToolCallID, p.Event.Child.DeltaKind, p.Event.Child.ContentIndex)
		if last != "" && k != last {
			interleaved++
		}
		last = k
		streams[k] += p.Event.Child.Delta
	}
	if len(streams) != 2*rounds || interleaved < 2*rounds {
		t.Fatalf("want %d interleaved child streams, got %d streams, %d switches", 2*rounds, len(streams), interleaved)
	}
	for k, text := range streams {
		if strings.Contains(text, envSecret) || strings.Contains(text, projKey) || !strings.Contains(text, masked) {
			t.Fatalf("stream %s joined: %q, want it to show %q", k, text, masked)
		}
	}

	// The client's display copy, rebuilt from every frame.
	view, err := s.Display()
	if err != nil || view.Err != nil {
		t.Fatalf("display copy: %v %v", err, view.Err)
	}
	state, _ := json.Marshal(view.State)
	for _, secret := range []string{envSecret, projKey} {
		if bytes.Contains(state, []byte(secret)) {
			t.Fatalf("the applied display state holds %q", secret)
		}
	}
	if c := bytes.Count(state, []byte(masked)); c < 2*rounds {
		t.Fatalf("the display shows the masked line %d times, want %d: %s", c, 2*rounds, state)
	}
}

// TestACPParallelSubagentSecretsStayMasked: the same two interleaved
// subagent streams over `pi-lsp acp`. Each subagent's text streams as its
// tool call's content (the text so far, less its unsafe tail): no byte the
// client read holds either secret, every content it was shown is a prefix
// of the masked line, and the model gets the real values.
func TestACPParallelSubagentSecretsStayMasked(t *testing.T) {
	const rounds = 4
	script, masked := parallelScript(rounds)
	e := newEnv(t, script)
	a := e.startACP("MY_SERVICE_API_KEY=" + envSecret)
	defer a.close()
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.workspace, "mcpServers": []any{}}), &ns); err != nil || ns.SessionID == "" {
		t.Fatalf("session/new: %v", err)
	}
	for r := range rounds {
		var res struct {
			StopReason string `json:"stopReason"`
		}
		_ = json.Unmarshal(a.call("session/prompt", map[string]any{"sessionId": ns.SessionID,
			"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("round %d go", r)}}}), &res)
		if res.StopReason != "end_turn" {
			t.Fatalf("round %d: stopReason %q", r, res.StopReason)
		}
	}
	model := bytes.Join(e.llm.Requests(), nil)
	if !bytes.Contains(model, []byte(envSecret)) || !bytes.Contains(model, []byte(projKey)) {
		t.Fatal("the model's requests must carry the subagents' answers with the real values")
	}
	got := a.received()
	for _, secret := range []string{envSecret, projKey} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Fatalf("%q crossed the wire: …%s…", secret, got[max(0, i-300):min(len(got), i+100)])
		}
	}
	// Every content shown for a subagent call, in order: the last one
	// shows the masked line, and the updates of the two calls interleave.
	shown := map[string][]string{}
	order := []string{}
	for _, m := range a.seen {
		var p struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				ToolCallID    string `json:"toolCallId"`
				Content       []struct {
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"content"`
			} `json:"update"`
		}
		if json.Unmarshal(m["params"], &p) != nil || p.Update.SessionUpdate != "tool_call_update" || len(p.Update.Content) == 0 {
			continue
		}
		id := p.Update.ToolCallID
		shown[id] = append(shown[id], p.Update.Content[0].Content.Text)
		if len(order) == 0 || order[len(order)-1] != id {
			order = append(order, id)
		}
	}
	if len(shown) != 2*rounds {
		t.Fatalf("content shown for %d subagent calls, want %d", len(shown), 2*rounds)
	}
	for id, texts := range shown {
		if final := texts[len(texts)-1]; !strings.Contains(final, masked) {
			t.Fatalf("%s: the last content shown %q, want it to show %q", id, final, masked)
		}
	}
	if len(order) <= 2*rounds {
		t.Logf("the two calls' updates did not interleave on the wire (%d runs): the coalescing window merged them", len(order))
	}
}
