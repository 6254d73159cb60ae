package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// fixturesDir holds streams recorded from real providers (test data kept in
// the repository, with its attribution README).
const fixturesDir = "../testdata/provider-streams"

type fixtureMeta struct {
	Expected struct {
		Text      string `json:"text"`
		Reasoning string `json:"reasoning"`
		ToolCalls []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"tool_calls"`
		FinishReason string `json:"finish_reason"`
		Usage        *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
	} `json:"expected"`
}

// mapFinish is the documented finish_reason → StopReason mapping.
func mapFinish(reason string, toolCalls int) llm.StopReason {
	switch reason {
	case "stop", "":
		if toolCalls > 0 {
			return llm.StopToolUse
		}
		return llm.StopStop
	case "length":
		return llm.StopLength
	case "tool_calls", "function_call":
		return llm.StopToolUse
	}
	return llm.StopError
}

// serveFile answers every request with the bytes of path as an SSE stream.
func serveFile(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProviderFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "response.sse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no recorded provider streams under %s (testdata/provider-streams is part of the repository)", fixturesDir)
	}
	for _, sse := range dirs {
		dir := filepath.Dir(sse)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			body, err := os.ReadFile(sse)
			if err != nil {
				t.Fatal(err)
			}
			metaData, err := os.ReadFile(filepath.Join(dir, "meta.json"))
			if err != nil {
				t.Fatal(err)
			}
			var meta fixtureMeta
			if err := json.Unmarshal(metaData, &meta); err != nil {
				t.Fatal(err)
			}
			want := meta.Expected
			srv := serveFile(t, body)
			model := llm.Model{ID: "m", Provider: "rec", BaseURL: srv.URL + "/v1"}
			var text, reasoning, args string
			msg := llm.NewClient(llm.ClientOptions{MaxRetries: -1}).Stream(context.Background(),
				llm.Request{Model: model, Messages: []llm.Message{llm.UserText("hi", 1)}},
				func(e llm.Event) {
					switch e.Type {
					case llm.EventTextDelta:
						text += e.Delta
					case llm.EventThinkingDelta:
						reasoning += e.Delta
					case llm.EventToolCallDelta:
						args += e.Delta
					}
				})
			if msg.ErrorMessage != "" {
				t.Fatalf("error: %s", msg.ErrorMessage)
			}
			if got := msg.Text(); got != want.Text || text != want.Text {
				t.Errorf("text = %q (deltas %q), want %q", got, text, want.Text)
			}
			var gotReasoning string
			for _, b := range msg.Content {
				if b.Type == llm.BlockThinking {
					gotReasoning += b.Thinking
				}
			}
			if gotReasoning != want.Reasoning || reasoning != want.Reasoning {
				t.Errorf("reasoning = %q (deltas %q), want %q", gotReasoning, reasoning, want.Reasoning)
			}
			calls := msg.ToolCalls()
			if len(calls) != len(want.ToolCalls) {
				t.Fatalf("%d tool calls, want %d: %+v", len(calls), len(want.ToolCalls), calls)
			}
			var wantArgs string
			for i, w := range want.ToolCalls {
				c := calls[i]
				if c.ID != w.ID || c.Name != w.Name || string(c.Arguments) != w.Arguments {
					t.Errorf("tool call %d = %s %s %s, want %s %s %s", i, c.ID, c.Name, c.Arguments, w.ID, w.Name, w.Arguments)
				}
				wantArgs += w.Arguments
			}
			if args != wantArgs {
				t.Errorf("argument deltas %q, want %q", args, wantArgs)
			}
			if sr := mapFinish(want.FinishReason, len(want.ToolCalls)); msg.StopReason != sr {
				t.Errorf("stop reason %q, want %q (finish_reason %q)", msg.StopReason, sr, want.FinishReason)
			}
			u := msg.Usage
			if want.Usage == nil {
				if u != (llm.Usage{}) {
					t.Errorf("usage %+v, want none", u)
				}
			} else if u.Input+u.CacheRead+u.CacheWrite != want.Usage.PromptTokens || u.Output != want.Usage.CompletionTokens || u.TotalTokens != want.Usage.TotalTokens {
				t.Errorf("usage %+v, want %+v", u, *want.Usage)
			}
		})
	}
}
