package display

import (
	"context"
	"errors"
	"github.com/pi-lsp/pi-lsp/protocol"
	"time"
)

// Scheduler defaults.
const (
	DefaultDebounce = 250 * time.Millisecond
	DefaultCap      = 500 * time.Millisecond
	DefaultMaxQueue = 64
)

// ErrClosed is returned by Next once the scheduler is closed.
var ErrClosed = errors.New("display: scheduler closed")

// SchedulerOptions configure a Scheduler; zero values take the defaults.
type SchedulerOptions struct {
	Clock    Clock         // RealClock
	Debounce time.Duration // flush once updates pause this long (250 ms)
	Cap      time.Duration // flush at the latest this long after the first pending update (500 ms)
	MaxQueue int           // frames waiting for a slow writer before they collapse into one full state (64)
	// Hold, when set, holds back the end of each item's streamed text that
	// could be the start of a secret (see holdOps), so that the egress,
	// which masks each frame, never sees a secret split across two frames.
	Hold Holder
	// AfterVersion is the version the client already holds from another
	// scheduler (a session handed over to a new owner): frame versions
	// continue after it instead of starting at 1.
	AfterVersion int64
	// Stream is the display stream the frames and snapshots name
	// (protocol.DisplayFrame.Stream).
	Stream string
}

// Frame is one display/state notification (protocol.DisplayFrame): exactly
// one of Ops and State is set. A Frame handed out is never modified
// afterwards.
type Frame = protocol.DisplayFrame

// Snapshot is the answer to display/snapshot.
type Snapshot = protocol.DisplaySnapshot

// Scheduler turns one Reducer's ops into frames for one client: urgent
// changes flush at once, others are batched (debounce, cap). Frames wait in
// a queue until the client's writer takes them with Next, so a slow client
// never blocks the harness; when the queue grows past MaxQueue the queued
// frames are dropped and replaced by one full-state frame.
type Scheduler struct {
	r        *Reducer
	clock    Clock
	debounce time.Duration
	cap      time.Duration
	maxQueue int
	stream   string
	hold     Holder

	// Guarded by r.mu.
	held        map[string]heldTail     // the held tails of streamed strings, by path (hold.go)
	whole       map[string]*wholeString // strings to send whole at their next append (hold.go)
	version     int64
	pending     []pendingOp
	first, last time.Time // first and latest pending non-urgent change
	armed       bool      // a timer is pending
	queue       []Frame
	closed      bool
	wake        chan struct{} // capacity 1: a frame was queued or the scheduler closed
}

// pendingOp is an op waiting for the next frame; appends grow buf.
type pendingOp struct {
	op   string
	path []any
	val  any
	buf  []byte
	at   int // push: the array index the value lands at, or -1
}

// NewScheduler attaches a scheduler for one client to r. Its first frame is
// the full state (version 1, or AfterVersion+1).
func NewScheduler(r *Reducer, opts SchedulerOptions) *Scheduler {
	s := &Scheduler{
		r:        r,
		clock:    opts.Clock,
		debounce: opts.Debounce,
		cap:      opts.Cap,
		maxQueue: opts.MaxQueue,
		version:  opts.AfterVersion,
		stream:   opts.Stream,
		hold:     opts.Hold,
		held:     map[string]heldTail{},
		whole:    map[string]*wholeString{},
		wake:     make(chan struct{}, 1),
	}
	if s.clock == nil {
		s.clock = RealClock{}
	}
	if s.debounce <= 0 {
		s.debounce = DefaultDebounce
	}
	if s.cap <= 0 {
		s.cap = DefaultCap
	}
	if s.maxQueue <= 0 {
		s.maxQueue = DefaultMaxQueue
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scheds = append(r.scheds, s)
	s.resyncLocked()
	return s
}

// Next returns the next frame, waiting for one. It returns ErrClosed after
// Close, or ctx's error.
func (s *Scheduler) Next(ctx context.Context) (Frame, error) {
	for {
		s.r.mu.Lock()
		if len(s.queue) > 0 {
			f := s.queue[0]
			s.queue[0] = Frame{}
			s.queue = s.queue[1:]
			if len(s.queue) == 0 {
				s.queue = nil
			}
			s.r.mu.Unlock()
			return f, nil
		}
		closed := s.closed
		s.r.mu.Unlock()
		if closed {
			return Frame{}, ErrClosed
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return Frame{}, ctx.Err()
		}
	}
}

// Snapshot returns a deep copy of the state under a new version. Frames not
// yet taken with Next are dropped (the snapshot contains them); the next
// frame has version Version+1. A client ignores frames whose version is not
// above its snapshot's.
func (s *Scheduler) Snapshot() Snapshot {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.snapshotLocked()
}

func (s *Scheduler) snapshotLocked() Snapshot {
	s.pending = s.pending[:0]
	s.first = time.Time{}
	s.queue = nil
	s.dropHeld()
	s.version++
	return Snapshot{Stream: s.stream, Version: s.version, State: s.r.snapshotLocked()}
}

// TrySnapshot is Snapshot, false once the scheduler is closed: a retired
// scheduler's snapshot could overtake its successor's first frame.
func (s *Scheduler) TrySnapshot() (Snapshot, bool) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if s.closed {
		return Snapshot{}, false
	}
	return s.snapshotLocked(), true
}

// Stream is the display stream the scheduler's frames name.
func (s *Scheduler) Stream() string { return s.stream }

// Retire closes the scheduler and returns the last version it handed out
// (frame or snapshot): a successor continues after it, so every frame the
// retired scheduler sent is older than the successor's first.
func (s *Scheduler) Retire() int64 {
	s.Close()
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.version
}

// Flush turns pending ops into a frame now.
func (s *Scheduler) Flush() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.flushLocked()
}

// Close detaches the scheduler from its reducer and wakes Next.
func (s *Scheduler) Close() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for i, o := range s.r.scheds {
		if o == s {
			s.r.scheds = append(s.r.scheds[:i], s.r.scheds[i+1:]...)
			break
		}
	}
	s.signal()
}

func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// addLocked takes the ops of one Apply. The caller holds r.mu.
func (s *Scheduler) addLocked(ops []rop, urgent bool) {
	for i := range ops {
		s.merge(&ops[i])
	}
	if urgent {
		s.flushLocked()
		return
	}
	now := s.clock.Now()
	if s.first.IsZero() {
		s.first = now
	}
	s.last = now
	if !s.armed {
		s.armed = true
		s.clock.AfterFunc(s.deadline().Sub(now), s.onTimer)
	}
}

// deadline is when the pending batch is due: a pause of debounce, at most
// cap after its first change.
func (s *Scheduler) deadline() time.Time {
	d := s.last.Add(s.debounce)
	if c := s.first.Add(s.cap); c.Before(d) {
		return c
	}
	return d
}

// onTimer flushes a batch that is due, or re-arms for when it will be. The
// timer is not reset on every change: it fires at the first deadline and
// re-arms if more changes moved the deadline, so a streamed chunk costs no
// timer operation.
func (s *Scheduler) onTimer() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.armed = false
	if s.closed || len(s.pending) == 0 {
		return
	}
	now := s.clock.Now()
	if due := s.deadline(); now.Before(due) {
		s.armed = true
		s.clock.AfterFunc(due.Sub(now), s.onTimer)
		return
	}
	s.flushLocked()
}

// merge adds one op to the pending batch, coalescing: an append extends an
// earlier append (or set string) at the same path when nothing in between
// touched that path; a set or delete drops the pending ops it overrides.
func (s *Scheduler) merge(o *rop) {
	switch o.op {
	case OpAppend:
		for i := len(s.pending) - 1; i >= 0 && i >= len(s.pending)-8; i-- {
			q := &s.pending[i]
			if samePath(q.path, o.path) {
				switch q.op {
				case OpAppend:
					q.buf = append(q.buf, o.str...)
					return
				case OpSet:
					if str, ok := q.val.(string); ok {
						q.val = str + o.str
						return
					}
				}
				break
			}
			if hasPrefix(q.path, o.path) || hasPrefix(o.path, q.path) {
				break
			}
		}
		s.pending = append(s.pending, pendingOp{op: OpAppend, path: o.path, buf: append([]byte(nil), o.str...), at: -1})
	case OpSet, OpDelete:
		kept := s.pending[:0]
		for _, q := range s.pending {
			if !hasPrefix(q.path, o.path) {
				kept = append(kept, q)
			}
		}
		clear(s.pending[len(kept):])
		s.pending = append(kept, pendingOp{op: o.op, path: o.path, val: o.val, at: -1})
	default:
		s.pending = append(s.pending, pendingOp{op: o.op, path: o.path, val: o.val, at: o.at})
	}
}

// flushLocked turns the pending ops into a frame. The caller holds r.mu.
func (s *Scheduler) flushLocked() {
	s.first = time.Time{}
	if len(s.pending) == 0 {
		return
	}
	ops := make([]Op, len(s.pending))
	at := make([]int, len(s.pending))
	for i := range s.pending {
		q := &s.pending[i]
		ops[i] = Op{Op: q.op, Path: q.path, Value: q.val}
		at[i] = q.at
		if q.op == OpAppend {
			ops[i].Value = string(q.buf)
		}
	}
	s.r.syncLive()
	ops = foldPushes(ops, at, s.r.st.Items)
	ops = mergeSets(s.holdOps(ops, at[:len(ops)]))
	clear(s.pending)
	s.pending = s.pending[:0]
	if len(ops) == 0 {
		return // all its text is held
	}
	s.version++
	s.enqueue(Frame{Stream: s.stream, Version: s.version, Ops: ops})
}

// resyncLocked replaces whatever is pending with one full-state frame.
func (s *Scheduler) resyncLocked() {
	s.pending = s.pending[:0]
	s.first = time.Time{}
	s.queue = nil
	s.dropHeld()
	s.version++
	st := s.r.snapshotLocked()
	s.enqueue(Frame{Stream: s.stream, Version: s.version, State: &st})
}

func (s *Scheduler) enqueue(f Frame) {
	if len(s.queue) >= s.maxQueue && f.State == nil {
		// The client is not keeping up: collapse everything it has not taken
		// into one full state under this frame's version.
		st := s.r.snapshotLocked()
		s.queue = nil
		s.dropHeld()
		f = Frame{Stream: s.stream, Version: f.Version, State: &st}
	}
	s.queue = append(s.queue, f)
	s.signal()
}
