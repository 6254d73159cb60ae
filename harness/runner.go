package harness

import (
	"context"
	"fmt"
	"sync"

	"github.com/pi-lsp/pi-lsp/llm"
	"github.com/pi-lsp/pi-lsp/tools"
)

// runner owns the run lifecycle of one harness: who holds the harness (a
// run, an idle-only operation, or nobody), the phase, the queued steering
// and follow-up messages, the changes waiting for turn_end and the callers
// waiting for the idle harness. Nothing else reads or writes that state.
//
// Every transition changes the state and emits its events in one step: it
// takes the event bus's lock (bus.go: the runner owns the bus), then mu,
// changes the state, releases mu and delivers the events before releasing
// the bus. No other emitter can slip an event in
// between, so events follow state changes by construction (agent_start
// after the phase went to turn, agent_end after it went back to idle, and
// one run's agent_end before the next run's agent_start).
//
// The holder is handed on, never dropped and re-taken: when a run or an
// operation ends, the next holder is chosen in the same transition — the
// first waiter (an operation that asked for the idle harness, or an
// interrupt's run), then an approved plan's hand-over to Build, then a run
// with the messages queued too late for the ending one, else nobody. No
// caller polls for the idle harness.
type runner struct {
	h *Harness

	// bus is the harness's event bus: subscribers, sequence, delivery.
	bus bus

	// applyMu serializes applying changes (model, thinking level): a change
	// queued during a run is applied at turn_end, or at the run's end before
	// the harness goes idle, and a change made while idle is applied at
	// once, never between the two. Lock order: applyMu, bus.mu, mu.
	applyMu sync.Mutex

	mu     sync.Mutex
	holder holder
	phase  Phase
	closed bool
	// finishing is set while the run applies its last changes: a change
	// made then waits for applyMu and is applied after the run's end.
	finishing bool
	cancel    context.CancelFunc // the run's, when holder is holdRun
	// cancelCause cancels the run with a cause (ErrClientGone from close).
	cancelCause context.CancelCauseFunc
	chain       chan struct{} // closed when the current chain of runs ends (Wait)
	steering    []llm.Message
	followUp    []llm.Message
	pending     []func(context.Context) error // changes queued during a run
	waiters     []*waiter
	// done are the channels a transition closes once its events are
	// delivered (a chain's end, a waiter's grant).
	done []chan struct{}
	// goal is the session's goal (goal_owner.go); runGoalID is the goal
	// the current run works toward (0 for none).
	goal      *goalRun
	goalSeq   int
	runGoalID int
}

type holder int

const (
	holdNone holder = iota // idle: anyone may take the harness
	holdRun                // a run is going
	holdOp                 // an idle-only operation (a switch, a user command, a compaction)
)

// waiter is a caller waiting for the harness: an idle claim (prompts nil)
// or an interrupt's run.
type waiter struct {
	granted chan struct{} // closed once the waiter holds the harness (or err is set)
	prompts []llm.Message
	model   llm.Model
	err     error
}

func newRunner(h *Harness) *runner { return &runner{h: h, phase: PhaseIdle} }

func (r *runner) lock() {
	r.bus.mu.Lock()
	r.mu.Lock()
}

// unlock releases mu, delivers evs in order and releases the bus.
func (r *runner) unlock(evs []Event) {
	done := r.done
	r.done = nil
	r.mu.Unlock()
	for _, ev := range evs {
		r.bus.emitLocked(ev)
	}
	for _, ch := range done {
		close(ch)
	}
	r.bus.mu.Unlock()
}

func (r *runner) busyLocked() error { return &BusyError{Phase: r.phase} }

// Phase is the current phase.
func (r *runner) Phase() Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase
}

func (r *runner) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *runner) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holder == holdRun
}

// start begins a run with prompts on the idle harness.
func (r *runner) start(model llm.Model, prompts []llm.Message) error {
	r.lock()
	var evs []Event
	err := r.closedOr(func() error {
		if r.holder != holdNone {
			return r.busyLocked()
		}
		evs = r.beginRunLocked(model, prompts, nil)
		return nil
	})
	r.unlock(evs)
	return err
}

func (r *runner) closedOr(fn func() error) error {
	if r.closed {
		return ErrClosed
	}
	return fn()
}

// submit delivers a user message: it starts a run on the idle harness, or
// queues it on a running one (steer, followUp), or aborts the running one
// and has it start next (interrupt). dropped are the queued texts an
// interrupt returned.
func (r *runner) submit(model llm.Model, m llm.Message, behavior Delivery) (d Delivery, dropped []string, err error) {
	r.lock()
	var evs []Event
	err = r.closedOr(func() error {
		switch r.holder {
		case holdNone:
			d, evs = DeliveryRun, r.beginRunLocked(model, []llm.Message{m}, nil)
			return nil
		case holdOp:
			if behavior != DeliveryInterrupt || r.phase != PhaseIdle {
				return r.busyLocked()
			}
			// A switch is finishing: the message runs right after it.
			r.waiters = append(r.waiters, &waiter{granted: make(chan struct{}), prompts: []llm.Message{m}, model: model})
			d = DeliveryInterrupt
			return nil
		}
		switch behavior {
		case DeliveryFollowUp:
			r.followUp = append(r.followUp, m)
			d, evs = DeliveryFollowUp, []Event{r.queueEventLocked()}
		case DeliveryInterrupt:
			r.cancel()
			dropped, evs = r.dropQueueLocked()
			r.waiters = append(r.waiters, &waiter{granted: make(chan struct{}), prompts: []llm.Message{m}, model: model})
			d = DeliveryInterrupt
		default:
			r.steering = append(r.steering, m)
			d, evs = DeliverySteer, []Event{r.queueEventLocked()}
		}
		return nil
	})
	r.unlock(evs)
	return d, dropped, err
}

// beginRunLocked makes a run the holder and starts it. chain continues a
// chain of runs (nil starts one). The caller holds the lock and delivers
// the events returned.
func (r *runner) beginRunLocked(model llm.Model, prompts []llm.Message, chain chan struct{}) []Event {
	ctx, cancel := context.WithCancelCause(context.Background())
	r.holder, r.cancel, r.cancelCause = holdRun, func() { cancel(nil) }, cancel
	if chain == nil {
		chain = r.chain
	}
	if chain == nil {
		chain = make(chan struct{})
	}
	r.chain = chain
	var evs []Event
	if r.phase != PhaseTurn {
		r.phase = PhaseTurn
		evs = append(evs, Event{Type: EvPhase, Phase: PhaseTurn})
	}
	evs = append(evs, Event{Type: EvAgentStart, Model: model.Ref()})
	evs = append(evs, r.goalRunStartsLocked()...)
	go r.h.run(ctx, model, prompts)
	return evs
}

// claim takes the idle harness for an idle-only operation in phase p
// (PhaseIdle for a switch), or answers busy. Release it with release.
func (r *runner) claim(p Phase) error {
	r.lock()
	var evs []Event
	err := r.closedOr(func() error {
		if r.holder != holdNone {
			return r.busyLocked()
		}
		r.holder = holdOp
		if p != r.phase {
			r.phase = p
			evs = append(evs, Event{Type: EvPhase, Phase: p})
		}
		return nil
	})
	r.unlock(evs)
	return err
}

// claimIdle takes the harness for an operation that may abort a run (a mode
// switch): it aborts the run, returning its queued messages as drafts, and
// waits until the harness is handed over. An operation in a phase of its
// own (a compaction) answers busy; a user command is cancelled; a switch in
// progress is waited for.
func (r *runner) claimIdle(ctx context.Context) error {
	r.lock()
	var evs []Event
	var w *waiter
	err := r.closedOr(func() error {
		switch {
		case r.holder == holdNone:
			r.holder = holdOp
			return nil
		case r.holder == holdOp && r.phase != PhaseIdle:
			return r.busyLocked()
		case r.holder == holdRun:
			r.cancel()
			_, evs = r.dropQueueLocked()
		}
		w = &waiter{granted: make(chan struct{})}
		r.waiters = append(r.waiters, w)
		return nil
	})
	r.unlock(evs)
	if err != nil || w == nil {
		return err
	}
	r.h.cancelBash()
	if err := waitFor(ctx, w.granted, "the harness to be handed over"); err != nil {
		return r.dropWaiter(w, err)
	}
	return w.err
}

// dropWaiter takes back w, whose claimIdle gave up with err. When the
// harness was handed to w meanwhile, it is passed on.
func (r *runner) dropWaiter(w *waiter, err error) error {
	r.mu.Lock()
	for i, o := range r.waiters {
		if o == w {
			r.waiters = append(r.waiters[:i], r.waiters[i+1:]...)
			r.mu.Unlock()
			return err
		}
	}
	r.mu.Unlock()
	// Handed over as ctx ended: pass it on.
	<-w.granted
	if w.err == nil {
		r.release()
	}
	return err
}

// release ends an idle-only operation and hands the harness on.
func (r *runner) release() {
	r.lock()
	var evs []Event
	if r.phase != PhaseIdle {
		r.phase = PhaseIdle
		evs = append(evs, Event{Type: EvPhase, Phase: PhaseIdle})
	}
	evs = r.handOnLocked(evs, nil)
	r.unlock(evs)
}

// handOnLocked chooses the next holder once the current one is done: the
// first waiter, then next (a run the ending holder asked for), then a run
// with the messages still queued, else nobody. The caller holds the lock.
func (r *runner) handOnLocked(evs []Event, next func() []Event) []Event {
	r.holder, r.cancel, r.cancelCause = holdNone, nil, nil
	if r.closed {
		for _, w := range r.waiters {
			w.err = ErrClosed
			r.done = append(r.done, w.granted)
		}
		r.waiters = nil
		r.steering, r.followUp, r.pending = nil, nil, nil
		return r.endChainLocked(evs)
	}
	if len(r.waiters) > 0 {
		w := r.waiters[0]
		r.waiters = r.waiters[1:]
		r.done = append(r.done, w.granted)
		if w.prompts == nil {
			// The harness goes to an operation: what was queued for the
			// ended run goes back to the user.
			_, dropped := r.dropQueueLocked()
			evs = append(evs, dropped...)
			r.holder = holdOp
			return r.endChainLocked(evs)
		}
		// An interrupt: its run takes over the queue as it is.
		return append(evs, r.beginRunLocked(w.model, w.prompts, r.chain)...)
	}
	if next != nil {
		return append(evs, next()...)
	}
	if evs, ok := r.goalDueRunLocked(evs); ok {
		return evs
	}
	if leftover := append(r.steering, r.followUp...); len(leftover) > 0 {
		r.steering, r.followUp = nil, nil
		evs = append(evs, Event{Type: EvQueueUpdate})
		return append(evs, r.beginRunLocked(r.h.currentModel(llm.Model{}), leftover, r.chain)...)
	}
	if r.phase != PhaseIdle {
		r.phase = PhaseIdle
		evs = append(evs, Event{Type: EvPhase, Phase: PhaseIdle})
	}
	return r.endChainLocked(evs)
}

func (r *runner) endChainLocked(evs []Event) []Event {
	if r.chain != nil {
		r.done = append(r.done, r.chain)
		r.chain = nil
	}
	return evs
}

// finish ends the run: the changes it queued are applied, the phase goes
// back to idle, agent_end is sent and the harness is handed on. plan is an
// approved plan (nil for none): unless the run was aborted, the harness
// goes to its hand-over to Build mode. verdict is the goal's judgement of
// the run (nil when none was made): the goal ends, or its next run starts.
func (r *runner) finish(reason EndReason, plan *tools.Plan, verdict *goalVerdict) {
	r.mu.Lock()
	r.finishing = true
	r.mu.Unlock()
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.applyPending(context.Background())
	r.h.persistState(context.Background())
	tokens := r.h.tokensPtr()
	reseed := r.h.reseedEvent(context.Background())
	cost := r.h.sessionCost()
	r.lock()
	r.cancel()
	r.finishing = false
	evs := []Event{}
	if r.phase != PhaseIdle {
		r.phase = PhaseIdle
		evs = append(evs, Event{Type: EvPhase, Phase: PhaseIdle})
	}
	evs = append(evs, Event{Type: EvAgentEnd, Reason: string(reason), Tokens: tokens})
	if reseed != nil {
		// A long run: the displays are bounded again from the new end.
		evs = append(evs, *reseed)
	}
	gevs, ended := r.goalAfterRunLocked(reason, verdict, cost)
	evs = append(evs, gevs...)
	var next func() []Event
	if plan != nil && reason != EndAborted && reason != EndClientGone {
		next = func() []Event {
			r.holder = holdOp
			go r.h.handOverToBuild(*plan)
			return nil
		}
	}
	evs = r.handOnLocked(evs, next)
	r.unlock(evs)
	if ended != nil {
		r.h.recordGoal(context.Background(), ended.session, "end", ended.Goal)
	}
}

// handToRun turns the operation the caller holds into a run with prompts
// and the messages queued meanwhile (an approved plan's build run). When
// someone waits for the harness the run does not start and the harness
// goes to them.
func (r *runner) handToRun(model llm.Model, prompts []llm.Message) error {
	r.lock()
	var evs []Event
	var err error
	if r.closed || len(r.waiters) > 0 {
		err = ErrClosed
		if !r.closed {
			err = r.busyLocked()
		}
		evs = r.handOnLocked(nil, nil)
	} else {
		prompts = append(prompts, append(r.steering, r.followUp...)...)
		if len(r.steering)+len(r.followUp) > 0 {
			evs = append(evs, Event{Type: EvQueueUpdate})
		}
		r.steering, r.followUp = nil, nil
		evs = append(evs, r.beginRunLocked(model, prompts, r.chain)...)
	}
	r.unlock(evs)
	return err
}

// abort cancels the run and drops its queued messages (returned as drafts).
func (r *runner) abort() []string {
	r.lock()
	var evs []Event
	var dropped []string
	if r.holder == holdRun {
		r.cancel()
		dropped, evs = r.dropQueueLocked()
		if len(evs) == 0 {
			evs = []Event{r.queueEventLocked()}
		}
	}
	r.unlock(evs)
	return dropped
}

// close refuses every later run and operation and aborts the run; wait for
// it with wait.
func (r *runner) close() {
	r.lock()
	r.closed = true
	var evs []Event
	if r.holder == holdRun {
		r.cancelCause(ErrClientGone) // closed under a run: its client went away
		_, evs = r.dropQueueLocked()
	}
	for _, w := range r.waiters {
		w.err = ErrClosed
		r.done = append(r.done, w.granted)
	}
	r.waiters = nil
	r.unlock(evs)
}

// wait blocks until the current chain of runs ends or ctx is done.
func (r *runner) wait(ctx context.Context) error {
	r.mu.Lock()
	ch := r.chain
	r.mu.Unlock()
	if ch == nil {
		return nil
	}
	return waitFor(ctx, ch, "the runs to end")
}

// dropQueueLocked empties the queue and returns its texts with the events
// that say so (queue_update, drafts_returned).
func (r *runner) dropQueueLocked() ([]string, []Event) {
	dropped := queuedTexts(r.steering, r.followUp)
	if len(dropped) == 0 {
		return dropped, nil
	}
	r.steering, r.followUp = nil, nil
	return dropped, []Event{{Type: EvQueueUpdate}, {Type: EvDraftsReturned, Drafts: dropped}}
}

func (r *runner) queueEventLocked() Event {
	s, f := r.queueLocked()
	return Event{Type: EvQueueUpdate, Steering: s, FollowUp: f}
}

func (r *runner) queueLocked() (steering, followUp []string) {
	for _, m := range r.steering {
		steering = append(steering, m.Text())
	}
	for _, m := range r.followUp {
		followUp = append(followUp, m.Text())
	}
	return steering, followUp
}

// queue returns the queued steering and follow-up texts.
func (r *runner) queue() (steering, followUp []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queueLocked()
}

// take hands the run the messages queued as kind — DeliverySteer (after a
// turn's tool calls) or DeliveryFollowUp (when the run would end) — and
// says so.
func (r *runner) take(kind Delivery) []llm.Message {
	q := r.queueOf(kind)
	r.lock()
	out := *q
	*q = nil
	var evs []Event
	if len(out) > 0 {
		evs = []Event{r.queueEventLocked()}
	}
	r.unlock(evs)
	return out
}

// queueOf is the queue of a delivery kind. Only steer and followUp are
// queued: any other kind is a programming error, and it panics rather than
// hand the run the wrong queue.
func (r *runner) queueOf(kind Delivery) *[]llm.Message {
	switch kind {
	case DeliverySteer:
		return &r.steering
	case DeliveryFollowUp:
		return &r.followUp
	}
	panic(fmt.Sprintf("harness: no queue for delivery %q", kind))
}

// setPhase moves the running harness between its run phases (turn, retry,
// compaction).
func (r *runner) setPhase(p Phase) {
	r.lock()
	var evs []Event
	if r.holder == holdRun && r.phase != p {
		r.phase = p
		evs = []Event{{Type: EvPhase, Phase: p}}
	}
	r.unlock(evs)
}

// change applies fn now, or — while a run is going — queues it for the
// run's next turn_end; deferred says which.
//
// Queuing takes no lock but mu, so a change made from inside the run (a
// hook) or while a turn's changes are applied never waits for them.
func (r *runner) change(ctx context.Context, fn func(context.Context) error) (deferred bool, err error) {
	if r.deferChange(fn) {
		return true, nil
	}
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	if r.deferChange(fn) { // a run started meanwhile
		return true, nil
	}
	return false, fn(ctx)
}

func (r *runner) deferChange(fn func(context.Context) error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holder != holdRun || r.finishing {
		return false
	}
	r.pending = append(r.pending, fn)
	return true
}

// flush applies the changes queued during the run (at turn_end).
func (r *runner) flush(ctx context.Context) {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.applyPending(ctx)
}

// applyPending applies the queued changes; the caller holds applyMu.
func (r *runner) applyPending(ctx context.Context) {
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, fn := range pending {
		if err := fn(ctx); err != nil {
			r.h.fail(err)
		}
	}
}
