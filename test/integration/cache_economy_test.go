package integration

import (
	"encoding/json"
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// The prompt-cache economy of a request log, as DESIGN.md §9 measures it:
// a request's cacheable tokens are the longest prefix it shares with one of
// the 8 requests before it (a provider's prompt cache bills them at a
// discount), counted in cl100k tokens over the prompt as a provider lays it
// out (tools, then the messages in order). The rest is uncached.
type economy struct {
	requests, helperCalls, turns int
	input, cached                int
}

func (e economy) String() string {
	share := 0.0
	if e.input > 0 {
		share = 100 * float64(e.cached) / float64(e.input)
	}
	return fmt.Sprintf("requests=%d helper_calls=%d helper_calls/turn=%.3f input_tokens=%d cacheable_tokens=%d cacheable_share=%.1f%% uncached_tokens=%d",
		e.requests, e.helperCalls, float64(e.helperCalls)/float64(max(e.turns, 1)), e.input, e.cached, share, e.input-e.cached)
}

// cacheEconomy measures reqs; helper says which requests are the
// observer's, reflector's or summarizer's (counted, and measured like the
// others).
func cacheEconomy(reqs [][]byte, turns int, helper func([]byte) bool) economy {
	codec, _ := tokenizer.Get(tokenizer.Cl100kBase)
	ec := economy{requests: len(reqs), turns: turns}
	var prev [][]uint
	for _, b := range reqs {
		if helper(b) {
			ec.helperCalls++
		}
		ids := promptTokens(codec, b)
		best := 0
		for _, p := range prev {
			n := 0
			for n < len(p) && n < len(ids) && p[n] == ids[n] {
				n++
			}
			best = max(best, n)
		}
		ec.input += len(ids)
		ec.cached += best
		prev = append(prev, ids)
		if len(prev) > 8 {
			prev = prev[1:]
		}
	}
	return ec
}

func promptTokens(codec tokenizer.Codec, body []byte) []uint {
	var r struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	_ = json.Unmarshal(body, &r)
	var out []uint
	enc := func(s string) {
		ids, _, _ := codec.Encode(s)
		out = append(out, ids...)
	}
	enc(string(r.Tools))
	for _, m := range r.Messages {
		enc(string(m))
	}
	return out
}
