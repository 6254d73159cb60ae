package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pi-lsp/pi-lsp/llm/llmtest"
	"github.com/pi-lsp/pi-lsp/rpc/rpctest"
)

// An unknown entry id is "not found" (-32005) for every method that takes
// one, as docs/protocol.md says, not an internal error.
func TestReviewUnknownEntryIsNotFound(t *testing.T) {
	e := newEnv(t, []llmtest.Response{{Text: "fine", Repeat: true}})
	s := e.start(startOpt{})
	s.prompt("hello")
	s.waitIdle()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"session/fork", map[string]any{"entryId": "deadbeef"}},
		{"session/fork", map[string]any{"entryId": "deadbeef", "at": true}},
		{"session/label", map[string]any{"entryId": "deadbeef", "label": "x"}},
		{"session/entries", map[string]any{"ids": []string{"deadbeef"}}},
		{"session/navigate", map[string]any{"targetId": "deadbeef"}},
	} {
		err := s.Call(ctx, c.method, c.params, nil)
		var re *rpctest.Error
		if !errors.As(err, &re) || re.Code != -32005 {
			t.Errorf("%s %v: got %v, want code -32005", c.method, c.params, err)
		}
	}
}
