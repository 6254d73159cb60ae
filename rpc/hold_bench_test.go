package rpc

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// benchDeltas are streamed words, some split inside.
var benchDeltas = strings.SplitAfter("Here is a typical streamed answer, with words of varied len gth and some code like fmt.Prin tln(x) in it. ", " ")

// BenchmarkEgressStreamedChunk is the cost per streamed chunk at the
// connection's writer: one message_update harness/event through the
// held-back tail, the mask and the framing.
func BenchmarkEgressStreamedChunk(b *testing.B) {
	for _, mode := range []string{"hold", "nohold"} {
		b.Run(mode, func(b *testing.B) {
			r := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"})
			s := newStream(strings.NewReader(""), io.Discard, DefaultMaxFrame, r, slog.New(slog.DiscardHandler), nil)
			if mode == "nohold" {
				s.hold = nil
			}
			msgs := make([]jsonrpc2.Message, len(benchDeltas))
			for i, d := range benchDeltas {
				p, _ := json.Marshal(map[string]any{"event": protocol.Event{Type: "message_update", Seq: uint64(i + 1), DeltaKind: "text", Delta: d}})
				msgs[i] = jsonrpc2.NewNotification("harness/event", p)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Write(ctx, msgs[i%len(msgs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEgressDisplayFrame is the cost of one display/state frame of a
// streaming answer: an append and a token merge.
func BenchmarkEgressDisplayFrame(b *testing.B) {
	r := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711"})
	s := newStream(strings.NewReader(""), io.Discard, DefaultMaxFrame, r, slog.New(slog.DiscardHandler), nil)
	msgs := make([]jsonrpc2.Message, len(benchDeltas))
	for i, d := range benchDeltas {
		p, _ := json.Marshal(map[string]any{"version": i + 1, "ops": []any{[]any{"a", []any{"items", 3, "text"}, d}, []any{"m", []any{"tokens"}, map[string]int{"output": i}}}})
		msgs[i] = jsonrpc2.NewNotification("display/state", p)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Write(ctx, msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
	}
}
