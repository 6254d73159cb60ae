package attach

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
	"github.com/pi-lsp/pi-lsp/tools"
)

// Caller is what a question is asked through: a client, or (in FanOut) a
// recorder of the answer it got.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
	Log(level slog.Level, msg string)
}

// recorder is a client whose answer is kept as it was sent: the winner's
// answer becomes the outcome of ui/resolved.
type recorder struct {
	*rpc.Client
	raw json.RawMessage
	ok  bool  // the client answered (not an error, not gone)
	err error // why it did not
}

func (r *recorder) Call(ctx context.Context, method string, params, result any) error {
	if err := r.Client.Call(ctx, method, params, &r.raw); err != nil {
		r.err = err
		return err
	}
	r.ok = true
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(r.raw, result); err != nil {
		r.ok = false
		return rpc.ErrInvalidParams("the answer: " + err.Error())
	}
	return nil
}

type answer[T any] struct {
	v   T
	err error
	rec *recorder
}

// FanOut asks every client of clients at once (ask puts the question
// through the Caller it is given). The first client that answers wins; the
// others are sent ui/resolved (kind, id and the winner's outcome) and their
// requests are cancelled. A client that goes away is no longer waited for.
// With no client, or none that answers, it returns tools.ErrNoUI (the
// harness falls back by policy).
func FanOut[T any](ctx context.Context, clients []*rpc.Client, method, kind, id string, ask func(context.Context, Caller) (T, error)) (T, error) {
	var zero T
	if len(clients) == 0 {
		return zero, tools.ErrNoUI
	}
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	results := make(chan answer[T], len(clients))
	cancels := make([]context.CancelFunc, len(clients))
	recs := make([]*recorder, len(clients))
	for i, c := range clients {
		cctx, cancel := context.WithCancel(ctx)
		cancels[i] = cancel
		recs[i] = &recorder{Client: c}
		go func(rec *recorder) {
			v, err := ask(cctx, rec)
			results <- answer[T]{v: v, err: err, rec: rec}
		}(recs[i])
	}
	defer func() {
		// The losers return once their cancel is sent; results is
		// buffered, so none of them blocks.
		for _, cancel := range cancels {
			cancel()
		}
	}()
	var lastErr error
	noUI := 0
	for range clients {
		r := <-results
		if r.err == nil && !r.rec.ok {
			r.err = r.rec.err
		}
		if r.err == nil && r.rec.ok {
			by := ""
			if ci := r.rec.Params().ClientInfo; ci != nil {
				by = ci.Name
			}
			res := protocol.ResolvedParams{RequestID: id, Kind: kind, Outcome: outcome(kind, r.rec.raw), By: by}
			for i, rec := range recs {
				if rec != r.rec {
					_ = rec.Notify("ui/resolved", res)
					cancels[i]()
				}
			}
			return r.v, nil
		}
		switch {
		case errors.Is(r.err, tools.ErrNoUI):
			noUI++
		case errors.Is(r.err, rpc.ErrClosed):
			// detached while asked: not waited for
		case r.err != nil:
			lastErr = r.err
		default:
			lastErr = errors.New(method + ": the client's answer could not be read")
		}
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if noUI == len(clients) || lastErr == nil {
		// Nobody could answer, or every client asked went away.
		return zero, tools.ErrNoUI
	}
	return zero, lastErr
}

// outcome is the part of the winning answer ui/resolved reports: the
// decision of an approval, the answer(s) of a question, the whole verdict
// of a plan.
func outcome(kind string, raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	switch kind {
	case "approval":
		if d, ok := m["decision"]; ok {
			return d
		}
	case "question":
		for _, k := range []string{"answers", "answer"} {
			if v, ok := m[k]; ok && string(v) != "null" {
				return v
			}
		}
	}
	return raw
}
