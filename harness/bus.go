package harness

import "sync"

// bus is the harness's event bus: the subscribers, the sequence number and
// the delivery. The run owner holds it (runner.bus): a transition takes the
// bus lock before its own, changes the state and delivers its events before
// releasing it, so no other emitter slips an event in between (runner.go).
// Lock order: bus.mu, then the runner's and the harness's mu; never emit
// while holding either of those.
type bus struct {
	mu   sync.Mutex
	subs map[int]func(Event)
	next int
	seq  uint64
}

// subscribeLocked registers fn; the caller holds mu. The returned func
// unsubscribes (it takes mu).
func (b *bus) subscribeLocked(fn func(Event)) (unsubscribe func()) {
	if b.subs == nil {
		b.subs = map[int]func(Event){}
	}
	id := b.next
	b.next++
	b.subs[id] = fn
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// emit delivers ev to every subscriber with the next sequence number.
func (b *bus) emit(ev Event) {
	b.mu.Lock()
	b.emitLocked(ev)
	b.mu.Unlock()
}

// emitLocked is emit with mu already held: a caller that must make a state
// change and its events atomic to other emitters holds mu across both.
func (b *bus) emitLocked(ev Event) {
	b.seq++
	ev.Seq = b.seq
	for _, fn := range b.subs {
		fn(ev)
	}
}
