package llm_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

// FuzzStreamBody feeds whole response bodies (SSE or JSON) through the
// client: whatever a server sends, Stream returns an assistant message
// with a known stop reason that serialises, and never panics.
func FuzzStreamBody(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		": comment\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\n",
		"event: error\ndata: {\"error\":{\"message\":\"bad\",\"code\":500}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\n\n",
		"{\"choices\":[{\"message\":{\"content\":\"whole\"},\"finish_reason\":\"stop\"}]}",
		"data: [DONE]", "", "\n\n\n", "data: \n\n", "data: {}\n\ndata: {}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := llm.NewClient(llm.ClientOptions{HTTPClient: &http.Client{Transport: memTransport{body}}, MaxRetries: -1})
		msg := c.Stream(context.Background(), llm.Request{Model: llm.Model{ID: "m", Provider: "p", BaseURL: "http://mem/v1"}}, nil)
		switch msg.StopReason {
		case llm.StopStop, llm.StopLength, llm.StopToolUse:
		case llm.StopError:
			if msg.ErrorMessage == "" {
				t.Fatal("error without a message")
			}
		default:
			t.Fatalf("stop reason %q", msg.StopReason)
		}
		if _, err := json.Marshal(msg); err != nil {
			t.Fatalf("message does not serialise: %v", err)
		}
	})
}
