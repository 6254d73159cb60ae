package integration

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
)

// The secrets of these tests: an environment value (MY_SERVICE_API_KEY, a
// *KEY* name) and a token that only the NAME=value shape gives away, written
// inside JSON-escaped tool arguments.
const (
	envSecret   = "s3cr3t-value-4711"
	shapeSecret = "hunter2hunter2"
)

// TestNoSecretReachesTheClient runs a tool call whose arguments and output
// hold secrets, then reads the session every way the protocol allows. Not
// one byte the client received carries a secret — tool_execution_start,
// message_end, the ui/requestApproval display text, display/state,
// session/entries, session/export (jsonl and markdown), session/tree — while
// the model's request carries the real values and the session file keeps
// them.
func TestNoSecretReachesTheClient(t *testing.T) {
	args := `{"command":"echo \"MY_TOKEN=` + shapeSecret + `\"; echo key=$MY_SERVICE_API_KEY"}`
	e := newEnv(t, []llmtest.Response{
		{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: args}}},
		{Match: envSecret, Text: "I saw the key and will not repeat it."},
	})
	s := e.start(startOpt{extraEnv: []string{"MY_SERVICE_API_KEY=" + envSecret},
		caps: map[string]any{"ui": map[string]any{"approvals": true}, "harnessEvents": true}})
	ap := &approvals{decisions: []string{"approve"}}
	ap.install(s)
	s.prompt("print the key")
	st := s.waitIdle()
	if e.llm.Pending() != 0 {
		t.Fatal("the model never got the tool's real output")
	}
	reqs := e.llm.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), envSecret) || !strings.Contains(string(reqs[1]), shapeSecret) {
		t.Fatalf("the model's request must carry the real values: %d requests", len(reqs))
	}
	if ap.count() != 1 {
		t.Fatalf("approval requests: %d", ap.count())
	}
	if file := readFile(t, st.Path); !strings.Contains(file, envSecret) || !strings.Contains(file, shapeSecret) {
		t.Fatal("the session file must keep the real tool output (the model needs it on resume)")
	}

	var snap, ents, jsonl, md, tree json.RawMessage
	s.call("display/snapshot", nil, &snap)
	s.call("session/entries", map[string]any{}, &ents)
	s.call("session/export", map[string]any{"format": "jsonl"}, &jsonl)
	s.call("session/export", map[string]any{"format": "markdown"}, &md)
	// The tree sends the linear run as one node; its entries (with their
	// previews) come from {"chain": id}.
	var top struct {
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	}
	s.call("session/tree", nil, &top)
	if len(top.Nodes) == 0 {
		t.Fatal("session/tree: no nodes")
	}
	s.call("session/tree", map[string]any{"chain": top.Nodes[0].ID}, &tree)

	got := s.Received()
	for _, secret := range []string{envSecret, shapeSecret} {
		if i := bytes.Index(got, []byte(secret)); i >= 0 {
			t.Fatalf("%q crossed the wire: …%s…", secret, got[max(0, i-300):min(len(got), i+100)])
		}
	}

	// Each place got the masked value, not nothing, and JSON stayed JSON.
	masked := "••••••"
	start := findEvent(t, s, "tool_execution_start")
	var startArgs struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(start["args"], &startArgs); err != nil || !strings.Contains(startArgs.Command, `"MY_TOKEN=`+masked+`"`) {
		t.Fatalf("tool_execution_start args %s (%v): want valid JSON with the token masked", start["args"], err)
	}
	ap.mu.Lock()
	display, _ := ap.seen[0]["display"].(string)
	ap.mu.Unlock()
	if !strings.Contains(display, "MY_TOKEN="+masked) {
		t.Fatalf("ui/requestApproval display %q", display)
	}
	for what, v := range map[string]json.RawMessage{"snapshot": snap, "entries": ents, "jsonl": jsonl, "markdown": md, "tree": tree} {
		if !strings.Contains(string(v), masked) {
			t.Errorf("%s shows no masked value: %.300s", what, v)
		}
	}
	var exp struct{ Text string }
	_ = json.Unmarshal(jsonl, &exp)
	for i, line := range strings.Split(strings.TrimSpace(exp.Text), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("exported line %d is no longer JSON: %s", i+1, line)
		}
	}
}

// findEvent returns the first harness/event of type typ.
func findEvent(t *testing.T, s *server, typ string) map[string]json.RawMessage {
	t.Helper()
	for _, n := range s.Notifications("harness/event") {
		var p struct {
			Event map[string]json.RawMessage `json:"event"`
		}
		if json.Unmarshal(n.Params, &p) == nil && string(p.Event["type"]) == `"`+typ+`"` {
			return p.Event
		}
	}
	t.Fatalf("no %s event", typ)
	return nil
}

// TestProviderErrorWithTheKeyIsMasked: a provider rejects the key and quotes
// it in its error. The key reaches neither the client (display errors, the
// error item, the error harness event) nor the session file, which still
// records the error.
func TestProviderErrorWithTheKeyIsMasked(t *testing.T) {
	const key = "fk-live-2a9c8e7f6d5b4a39"
	e := newEnv(t, []llmtest.Response{{Status: 401, Error: "Incorrect API key provided: " + key + ". You can find your API key in your account."}})
	// The provider's key comes from the environment, as users configure it.
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFile(t, e.models)), &doc); err != nil {
		t.Fatal(err)
	}
	doc["providers"].(map[string]any)[llmtest.ProviderName].(map[string]any)["apiKey"] = "PI_FAKE_API_KEY"
	models := filepath.Join(filepath.Dir(e.models), "models-env-key.json")
	b, _ := json.Marshal(doc)
	writeFile(t, models, string(b))
	s := e.start(startOpt{extraEnv: []string{"PI_FAKE_API_KEY=" + key, "PI_LSP_MODELS=" + models},
		caps: map[string]any{"harnessEvents": true}})
	s.prompt("hello")
	st := s.waitIdle()
	if len(e.llm.Requests()) == 0 {
		t.Fatal("the model was never called")
	}

	var snap json.RawMessage
	s.call("display/snapshot", nil, &snap)
	if got := s.Received(); bytes.Contains(got, []byte(key)) {
		t.Fatalf("the key crossed the wire: %s", got)
	}
	for what, v := range map[string]string{"display snapshot": string(snap), "error event": mustJSON(findEvent(t, s, "error"))} {
		if !strings.Contains(v, "Incorrect API key provided: ••••••") {
			t.Errorf("%s does not show the masked error: %.400s", what, v)
		}
	}
	file := readFile(t, st.Path)
	if strings.Contains(file, key) {
		t.Fatalf("the session file stores the key: %s", file)
	}
	if !strings.Contains(file, "Incorrect API key provided: ••••••") {
		t.Fatalf("the session file lost the error: %s", file)
	}
}

// TestExecMasksItsOutput: `pi-lsp exec` prints to a terminal or a CI log,
// which is where its data leaves the process; --json and the text mode mask
// as the wire does, and the model still gets the real value.
func TestExecMasksItsOutput(t *testing.T) {
	args := `{"command":"echo \"MY_TOKEN=` + shapeSecret + `\"; echo key=$MY_SERVICE_API_KEY; exit 3"}`
	for _, mode := range []string{"--json", "--log-level=warn"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, []llmtest.Response{
				{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "bash", Arguments: args}}},
				{Match: envSecret, Text: "done"},
			})
			t.Setenv("MY_SERVICE_API_KEY", envSecret)
			out, errOut, code := e.exec(mode, "--yolo", "print the key")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if e.llm.Pending() != 0 || !strings.Contains(string(e.llm.Requests()[1]), shapeSecret) {
				t.Fatal("the model did not get the real output")
			}
			for _, secret := range []string{envSecret, shapeSecret} {
				if strings.Contains(out+errOut, secret) {
					t.Fatalf("%s printed %q:\n%s\n%s", mode, secret, out, errOut)
				}
			}
			if !strings.Contains(out+errOut, "••••••") {
				t.Fatalf("nothing masked in the output:\n%s\n%s", out, errOut)
			}
		})
	}
}
