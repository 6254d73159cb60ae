package outbox

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/pi-lsp/pi-lsp/protocol"
)

// DefaultMergeAt is the backlog of a slow client past which its token
// deltas merge and its display frames give way to a snapshot.
const DefaultMergeAt = 4096

// Holder says how much of the end of streamed text could be the beginning
// of a secret; *tools.Redactor satisfies it.
type Holder interface {
	HoldLen(s string) int
}

// Kind is what the merge rule knows of an item.
type Kind uint8

// The kinds of items.
const (
	// Keep is never merged and never dropped: tool calls, errors,
	// agent_end, progress, every notification that is not one of the
	// others.
	Keep Kind = iota
	// Delta is a token delta (a message_update, or a subagent_event whose
	// child is one): once the client is behind it merges into the queued
	// delta of its own stream.
	Delta
	// JobOutput is a background job's streamed output (added by Job): it
	// merges like Delta, per job.
	JobOutput
	// Frame is a display/state frame: once the client is behind, queued
	// frames are dropped and the writer sends a snapshot (Take's resync).
	Frame
	// Chunk is a streamed chunk that is not a harness/event (added by
	// Chunk: ACP's agent message and thought chunks): it merges like
	// Delta, into the queued chunk of its own stream.
	Chunk
)

// Options configure an Outbox.
type Options struct {
	// Hold decides the held tail of each stream; nil holds nothing (an
	// attached process: the owner held its text already).
	Hold Holder
	// MergeAt is the backlog past which deltas merge and frames resync
	// (DefaultMergeAt).
	MergeAt int
}

// Item is one notification waiting for the writer.
type Item struct {
	Method string
	// Event is a harness/event's event (sent as protocol.EventParams).
	Event *protocol.Event
	// Params are any other notification's params (for a Frame, the frame).
	Params any
	// Version is a Frame's version.
	Version int64

	kind   Kind
	stream Stream
	merged []byte // a merged delta's text, written into Event by settle
	seq    uint64 // the merged delta's last seq
}

// Kind is the item's kind.
func (it Item) Kind() Kind { return it.kind }

// Payload is what the writer sends as the notification's params.
func (it Item) Payload() any {
	if it.Event != nil {
		return protocol.EventParams{Event: *it.Event}
	}
	return it.Params
}

// held is a stream's held-back tail and the stream's last event, which
// waits with it (its own text decided).
type held struct {
	ev   protocol.Event
	tail string
}

// Outbox is one connection's queue of outgoing notifications. Producers
// call Event, Frame, Note and Job from any goroutine (they never block);
// the connection's writer calls Take.
type Outbox struct {
	hold    Holder
	mergeAt int

	mu     sync.Mutex
	items  []Item
	held   map[Stream]*held
	last   map[Stream]int // the index of each stream's queued delta with only deltas after it
	resync bool           // frames were dropped: the writer sends a snapshot
	floor  int64          // frames at or below this version are older than the last snapshot sent
	closed bool
	wake   chan struct{}
}

// New returns an empty Outbox.
func New(opts Options) *Outbox {
	if opts.MergeAt <= 0 {
		opts.MergeAt = DefaultMergeAt
	}
	return &Outbox{hold: opts.Hold, mergeAt: opts.MergeAt, held: map[Stream]*held{}, last: map[Stream]int{}, wake: make(chan struct{}, 1)}
}

// Event queues a harness/event. A token delta sends what of its stream's
// text is safe now and holds the rest; an event that ends streams sends
// their held text first, each as a delta of its own stream.
func (o *Outbox) Event(ev protocol.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	if s, delta, ok := streamOf(&ev); ok {
		o.delta(s, ev, delta)
	} else {
		o.release(&ev)
		o.push(Item{Method: "harness/event", Event: &ev, kind: Keep})
	}
	o.signal()
}

// delta takes a token delta of stream s. With a Holder, the stream's text
// so far is cut where no secret can be split: the safe part goes out, the
// tail waits. The event whose text left a tail waits too, in its stream:
// it goes out (with the text decided when it came) just before the
// stream's next delta, or at the stream's end carrying the tail, so every
// event is sent once and in order within its stream. The caller holds mu.
func (o *Outbox) delta(s Stream, ev protocol.Event, delta string) {
	if o.hold != nil {
		h := o.held[s]
		text := delta
		if h != nil {
			text = h.tail + delta
			delete(o.held, s)
			o.queueDelta(s, h.ev) // the stream's previous event, with its text
		}
		n := o.hold.HoldLen(text)
		if send := text[:len(text)-n]; send != delta {
			ev = withDelta(ev, send)
		}
		if n > 0 {
			o.held[s] = &held{ev: ev, tail: text[len(text)-n:]}
			return
		}
	}
	o.queueDelta(s, ev)
}

// queueDelta queues a token delta of stream s, merging it into the
// stream's queued delta once the client is MergeAt items behind. The
// caller holds mu.
func (o *Outbox) queueDelta(s Stream, ev protocol.Event) {
	if len(o.items) >= o.mergeAt {
		if i, ok := o.last[s]; ok {
			it := &o.items[i]
			if it.merged == nil {
				_, first, _ := streamOf(it.Event)
				it.merged = append([]byte(nil), first...)
			}
			_, d, _ := streamOf(&ev)
			it.merged = append(it.merged, d...)
			it.seq = ev.Seq
			return
		}
	}
	o.last[s] = len(o.items)
	o.items = append(o.items, Item{Method: "harness/event", Event: &ev, kind: Delta, stream: s})
}

// release queues the held text of the streams ev ends, each as a delta of
// its own stream. The caller holds mu.
func (o *Outbox) release(ev *protocol.Event) {
	if len(o.held) == 0 {
		return
	}
	var done []Stream
	for s := range o.held {
		if ends(ev, s) {
			done = append(done, s)
		}
	}
	slices.SortFunc(done, func(a, b Stream) int {
		return cmp.Or(strings.Compare(a.Subagent, b.Subagent), strings.Compare(a.Kind, b.Kind), cmp.Compare(a.Index, b.Index))
	})
	for _, s := range done {
		h := o.held[s]
		delete(o.held, s)
		_, sent, _ := streamOf(&h.ev)
		o.queueDelta(s, withDelta(h.ev, sent+h.tail))
	}
}

// push queues an item that is not a delta. The caller holds mu.
func (o *Outbox) push(it Item) {
	o.items = append(o.items, it)
	clear(o.last) // a delta never merges across it
}

// Frame queues a display/state frame of version v. Once the client is
// MergeAt items behind, the queued frames are dropped and Take reports a
// resync: the writer sends a snapshot (and calls Snapshot with its
// version) in their place.
func (o *Outbox) Frame(v int64, frame any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed, o.resync, o.floor > 0 && v <= o.floor:
		// The snapshot to come (or sent) holds it.
		return
	case len(o.items) >= o.mergeAt:
		o.dropFrames(func(Item) bool { return true })
		o.resync = true
	default:
		o.push(Item{Method: "display/state", Params: frame, Version: v, kind: Frame})
	}
	o.signal()
}

// Snapshot says a snapshot of version v was sent: queued and later frames
// at or below it are dropped.
func (o *Outbox) Snapshot(v int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if v > o.floor {
		o.floor = v
	}
	o.dropFrames(func(it Item) bool { return it.Version <= o.floor })
}

// dropFrames removes the queued frames drop selects. The caller holds mu.
func (o *Outbox) dropFrames(drop func(Item) bool) {
	kept := o.items[:0]
	for _, it := range o.items {
		if it.kind != Frame || !drop(it) {
			kept = append(kept, it)
		}
	}
	clear(o.items[len(kept):])
	o.items = kept
	clear(o.last)
}

// Note queues any other notification; it is kept whatever the backlog.
// false when the outbox is closed (nothing was queued).
func (o *Outbox) Note(method string, params any) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.push(Item{Method: method, Params: params, kind: Keep})
	o.signal()
	return true
}

// Job queues a chunk of a background job's output (the hook for job
// output: it merges per job like a token delta). params is the whole
// notification; merge, when the client is behind and the job's previous
// chunk is still queued, returns that chunk's params with this one
// appended.
func (o *Outbox) Job(method, job string, params any, merge func(prev any) any) {
	o.mergeable(JobOutput, method, Stream{Subagent: job, Kind: "job"}, params, merge)
}

// Chunk queues a streamed chunk of stream s that is not a harness/event
// (ACP's agent message and thought chunks, by session and kind). Like a
// token delta it merges only with the queued chunk of its own stream, and
// only once the client is behind: merge returns the previous chunk's
// params with this one appended. Any Keep item queued between the two
// (a tool call, a plan, an answer) stops the merge.
func (o *Outbox) Chunk(method string, s Stream, params any, merge func(prev any) any) {
	o.mergeable(Chunk, method, s, params, merge)
}

func (o *Outbox) mergeable(kind Kind, method string, s Stream, params any, merge func(prev any) any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	if i, ok := o.last[s]; ok && len(o.items) >= o.mergeAt && merge != nil {
		o.items[i].Params = merge(o.items[i].Params)
		return
	}
	o.last[s] = len(o.items)
	o.items = append(o.items, Item{Method: method, Params: params, kind: kind, stream: s})
	o.signal()
}

// Close ends the outbox: Take returns what is queued, then open false.
// Held text is dropped: nothing will end its stream.
func (o *Outbox) Close() {
	o.mu.Lock()
	o.closed = true
	clear(o.held)
	o.mu.Unlock()
	o.signal()
}

func (o *Outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Take waits for items and returns all of them, in order. resync is true
// when display frames were dropped since the last Take: send a snapshot
// first. open is false once ctx ends, or the outbox is closed and empty.
func (o *Outbox) Take(ctx context.Context) (items []Item, resync, open bool) {
	for {
		o.mu.Lock()
		o.settle()
		items, o.items = o.items, nil
		clear(o.last)
		resync, o.resync = o.resync, false
		closed := o.closed
		o.mu.Unlock()
		if len(items) > 0 || resync {
			return items, resync, true
		}
		if closed {
			return nil, false, false
		}
		select {
		case <-o.wake:
		case <-ctx.Done():
			return nil, false, false
		}
	}
}

// settle writes merged deltas into their events. The caller holds mu.
func (o *Outbox) settle() {
	for i := range o.items {
		it := &o.items[i]
		if it.merged == nil {
			continue
		}
		ev := withDelta(*it.Event, string(it.merged))
		ev.Seq = it.seq
		it.Event, it.merged = &ev, nil
	}
}

// Held reports how many streams hold text back (for tests and metrics).
func (o *Outbox) Held() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.held)
}
