package rpc

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/outbox"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/tools"
)

// benchDeltas are streamed words, some split inside.
var benchDeltas = strings.SplitAfter("Here is a typical streamed answer, with words of varied len gth and some code like fmt.Prin tln(x) in it. ", " ")

// BenchmarkEgressStreamedChunk is the cost per streamed chunk from the
// harness to the wire: one message_update event through the connection's
// outbox (which holds each stream's unsafe tail: "hold"; or holds nothing:
// "nohold") and the writer's encode → mask → frame. It replaces the
// benchmark of rpc/hold.go (7.5–17.2 µs per chunk); the budget is 20 µs.
func BenchmarkEgressStreamedChunk(b *testing.B) {
	for _, mode := range []string{"hold", "nohold"} {
		b.Run(mode, func(b *testing.B) {
			r := tools.NewRedactor([]string{"MY_SERVICE_API_KEY=s3cr3t-value-4711", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"})
			s := newStream(strings.NewReader(""), io.Discard, DefaultMaxFrame, r, slog.New(slog.DiscardHandler), nil)
			opts := outbox.Options{Hold: r}
			if mode == "nohold" {
				opts.Hold = nil
			}
			out := outbox.New(opts)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out.Event(protocol.Event{Type: protocol.EvMessageUpdate, Seq: uint64(i + 1), DeltaKind: "text", Delta: benchDeltas[i%len(benchDeltas)]})
				items, _, _ := out.Take(ctx)
				for _, it := range items {
					if _, err := s.Write(ctx, jsonrpc2NewNote(b, it.Method, it.Payload())); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// jsonrpc2NewNote is the notification the Client's Notify hands the stream.
func jsonrpc2NewNote(b *testing.B, method string, params any) jsonrpc2.Message {
	p, err := json.Marshal(params)
	if err != nil {
		b.Fatal(err)
	}
	return jsonrpc2.NewNotification(method, p)
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
