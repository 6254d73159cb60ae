package attach

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/pi-lsp/pi-lsp/outbox"
	"github.com/pi-lsp/pi-lsp/protocol"
	"github.com/pi-lsp/pi-lsp/rpc"
)

// upstream is one connection from an attached process to the owner: the
// editor's requests go up it, and what the owner sends comes down to the
// editor (notifications in order, server→client requests answered by the
// editor). Ids are each connection's own: jsonrpc2 maps them both ways.
type upstream struct {
	l   *Link
	w   *wire
	out *outbox.Outbox // the editor connection's queue of the owner's notifications

	ctx    context.Context // ends with the connection
	cancel context.CancelFunc

	mu       sync.Mutex
	calls    map[string]context.CancelFunc // the owner's requests in flight, by id
	handover *protocol.HandoverParams
	running  bool // a run of the owner's is going
	closing  bool // this side closes: not a lost owner
}

func newUpstream(l *Link, w *wire) *upstream {
	ctx, cancel := context.WithCancel(context.Background())
	return &upstream{l: l, w: w, ctx: ctx, cancel: cancel,
		calls: map[string]context.CancelFunc{}, out: outbox.New(outbox.Options{})}
}

// start forwards the owner's notifications to the editor and watches for
// the owner going away.
func (u *upstream) start() {
	c := u.l.c
	go func() {
		if !c.WaitReady() {
			return
		}
		for {
			items, resync, open := u.out.Take(c.Context())
			if resync && !u.resync() {
				return
			}
			for _, it := range items {
				if err := c.Notify(it.Method, it.Payload()); err != nil {
					return
				}
				if it.Kind() == outbox.Frame {
					u.l.setVersion(it.Version)
				}
			}
			if !open {
				return
			}
		}
	}()
	go func() {
		select {
		case <-u.w.st.Ended():
		case <-u.w.st.Broken():
		case <-u.ctx.Done():
		}
		u.cancel()
		u.out.Close() // the editor still gets what the owner sent
		u.mu.Lock()
		closing := u.closing
		u.mu.Unlock()
		_ = u.w.st.Close()
		if !closing {
			u.l.lost(u)
		}
	}()
}

func (u *upstream) close() {
	u.mu.Lock()
	u.closing = true
	u.mu.Unlock()
	u.cancel()
	_ = u.w.st.Close()
}

// call forwards an editor request to the owner.
func (u *upstream) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var res json.RawMessage
	var p any
	if len(params) > 0 {
		p = params
	}
	ctx, stop := rpc.MergeCancel(ctx, u.ctx)
	defer stop()
	id, err := u.w.conn.Call(ctx, method, p, &res)
	if err != nil {
		if u.ctx.Err() != nil {
			return nil, &rpc.Error{Code: rpc.CodeInternalError, Message: fmt.Sprintf("%s: the owner of the session (pid %d) went away; send it again", method, u.w.ownerPID)}
		}
		if ctx.Err() != nil {
			_ = u.w.conn.Notify(u.ctx, "$/cancelRequest", rpc.CancelParams{ID: rpc.IDValue(id)})
			return nil, ctx.Err()
		}
		return nil, rpc.FromWire(err)
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	return res, nil
}

func (u *upstream) notify(ctx context.Context, method string, params json.RawMessage) error {
	var p any
	if len(params) > 0 {
		p = params
	}
	if err := u.w.conn.Notify(ctx, method, p); err != nil {
		return fmt.Errorf("attach: forwarding %s: %w", method, err)
	}
	return nil
}

// handle serves what the owner sends.
func (u *upstream) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	params := append(json.RawMessage(nil), req.Params()...)
	if !req.IsCall() {
		u.note(method, params)
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	key, _ := json.Marshal(rpc.IDValue(req.ID()))
	rctx, cancel := context.WithCancel(u.ctx)
	u.mu.Lock()
	u.calls[string(key)] = cancel
	u.mu.Unlock()
	defer func() {
		u.mu.Lock()
		delete(u.calls, string(key))
		u.mu.Unlock()
		cancel()
	}()
	var res json.RawMessage
	if err := u.l.c.Call(rctx, method, params, &res); err != nil {
		return nil, rpc.ToWire(err)
	}
	return res, nil
}

// note serves a notification of the owner's.
func (u *upstream) note(method string, params json.RawMessage) {
	switch method {
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(params, &p) == nil {
			u.mu.Lock()
			cancel := u.calls[string(p.ID)]
			u.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	case MethodHandover:
		var p protocol.HandoverParams
		if json.Unmarshal(params, &p) == nil {
			u.mu.Lock()
			u.handover = &p
			u.mu.Unlock()
		}
	case "harness/event":
		// The owner held the streamed text already: this side only
		// queues it, typed, so that a slow editor merges deltas per
		// stream.
		var p protocol.EventParams
		if json.Unmarshal(params, &p) != nil {
			break
		}
		switch p.Event.Type {
		case protocol.EvAgentStart:
			u.setRunning(true)
		case protocol.EvAgentEnd:
			u.setRunning(false)
		}
		if u.l.c.Capabilities().HarnessEvents {
			if isDelta(&p.Event) {
				u.out.Event(p.Event)
			} else {
				u.out.Note(method, params) // sent as the owner encoded it
			}
		}
	case "display/state":
		var f struct {
			Stream  string `json:"stream"`
			Version int64  `json:"version"`
		}
		_ = json.Unmarshal(params, &f)
		u.l.setStream(f.Stream)
		u.out.Frame(f.Version, params)
	default:
		var p any
		if len(params) > 0 {
			p = params
		}
		u.out.Note(method, p)
	}
}

// isDelta reports whether ev is a token delta (a message_update, or a
// subagent_event whose innermost child is one): the only events decoded
// and re-encoded on their way to the editor.
func isDelta(ev *protocol.Event) bool {
	for ev.Type == protocol.EvSubagentEvent && ev.Child != nil {
		ev = ev.Child
	}
	return ev.Type == protocol.EvMessageUpdate && ev.Message == nil
}

func (u *upstream) setRunning(v bool) {
	u.mu.Lock()
	u.running = v
	u.mu.Unlock()
}

// resync replaces the display frames the queue dropped for a slow editor
// with the owner's snapshot, sent as a full-state frame; false when the
// editor connection is gone. Frames the owner sent before the snapshot
// are dropped from then on (the snapshot holds them).
func (u *upstream) resync() bool {
	res, err := u.call(u.ctx, "display/snapshot", nil)
	if err != nil {
		// The owner went away: the change of owner sends a full state.
		return true
	}
	var snap protocol.DisplaySnapshot
	if err := json.Unmarshal(res.(json.RawMessage), &snap); err != nil {
		return true
	}
	u.l.setStream(snap.Stream)
	u.out.Snapshot(snap.Version)
	if err := u.l.c.Notify("display/state", res); err != nil {
		return false
	}
	u.l.setVersion(snap.Version)
	return true
}
