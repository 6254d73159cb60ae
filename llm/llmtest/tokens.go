package llmtest

import (
	"encoding/json"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// RealisticTokens counts a Chat Completions request as a provider does:
// the BPE tokens (cl100k) of every message's content, tool call and tool
// definition, plus a few tokens of framing per message. Code, numbers and
// logs come out at 2-3 characters per token, not the 4 of bytes/4.
func RealisticTokens(body []byte) int {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return max(1, len(body)/3)
	}
	c := cl100k()
	count := func(s string) int {
		if c == nil {
			return (len(s) + 2) / 3
		}
		ids, _, err := c.Encode(s)
		if err != nil {
			return (len(s) + 2) / 3
		}
		return len(ids)
	}
	n := 3
	for _, m := range req.Messages {
		n += 4
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			n += count(s)
		} else {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				n += count(p.Text)
			}
		}
		for _, tc := range m.ToolCalls {
			n += count(tc.Function.Name) + count(tc.Function.Arguments) + 3
		}
	}
	if len(req.Tools) > 0 {
		n += count(string(req.Tools))
	}
	return n
}

var (
	cl100kOnce  sync.Once
	cl100kCodec tokenizer.Codec
)

func cl100k() tokenizer.Codec {
	cl100kOnce.Do(func() {
		if c, err := tokenizer.Get(tokenizer.Cl100kBase); err == nil {
			cl100kCodec = c
		}
	})
	return cl100kCodec
}

// SetTokenCounter makes the fake report prompt tokens as fn counts the
// request body (RealisticTokens, say) instead of bytes/4, for responses
// without a scripted usage. nil restores bytes/4.
func (s *Server) SetTokenCounter(fn func(body []byte) int) {
	s.mu.Lock()
	s.counter = fn
	s.mu.Unlock()
}
