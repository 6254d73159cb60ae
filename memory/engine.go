package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/llm"
)

// Appender writes one custom entry to the session (session.Session's
// AppendCustom).
type Appender interface {
	AppendCustom(ctx context.Context, customType string, data any) (string, error)
}

// Config wires an Engine.
type Config struct {
	Streamer Streamer
	Session  Appender
	// Count measures a text in the provider's tokens.
	Count    func(string) int
	Now      func() time.Time
	Location *time.Location
	Logger   *slog.Logger
	// OnEvent receives every start and end of an observation, activation
	// or reflection, with the status after it. It is never called with the
	// engine's lock held.
	OnEvent func(Event)
}

// Event reports what the engine did.
type Event struct {
	Kind   string `json:"kind"`  // buffer | observe | activate | reflect
	Phase  string `json:"phase"` // start | end
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Status Status `json:"status"`
}

// Status is what the editor shows: the display's memory field.
type Status struct {
	Mode              string          `json:"mode"`
	ObservedMessages  int             `json:"observedMessages"`
	ObservationTokens int             `json:"observationTokens"`
	BufferedChunks    int             `json:"bufferedChunks"`
	BufferedTokens    int             `json:"bufferedTokens"` // raw message tokens the buffered chunks cover
	UnobservedTokens  int             `json:"unobservedTokens"`
	ObserveTokens     int             `json:"observeTokens"`
	ReflectTokens     int             `json:"reflectTokens"`
	Observing         bool            `json:"observing"`
	Reflecting        bool            `json:"reflecting"`
	LastReflection    *ReflectionInfo `json:"lastReflection,omitempty"`
	ObserverCalls     int             `json:"observerCalls"`
	ReflectorCalls    int             `json:"reflectorCalls"`
	LastError         string          `json:"lastError,omitempty"`
}

// ReflectionInfo describes the last reflection.
type ReflectionInfo struct {
	TokensBefore int   `json:"tokensBefore"`
	Tokens       int   `json:"tokens"`
	Level        int   `json:"level"`
	At           int64 `json:"at"`
}

// Trigger says why Prepare may rewrite the context below the thresholds.
type Trigger string

// Triggers.
const (
	TriggerNone     Trigger = ""
	TriggerIdle     Trigger = "idle"     // the provider's prompt cache has expired
	TriggerProvider Trigger = "provider" // the model's provider changed: its cache is cold
)

// View is the context Prepare leaves: the model sees the system prompt,
// Observations, Task and Suggested, then msgs[RawFrom:].
type View struct {
	Observations string
	Task         string
	Suggested    string
	RawFrom      int
}

// Engine is the one writer of a branch's memory: every record is appended
// under its lock, after checking that it follows from the state, so a
// background observation or reflection that finishes while the run goes on
// can neither lose a chunk nor cover a message twice.
type Engine struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	st        State
	bufDone   chan struct{} // non-nil while a background observation runs
	refDone   chan struct{} // non-nil while a background reflection runs
	lastErr   string
	calls     int // observer calls
	refCalls  int
	lastRaw   int // unobserved tokens at the last Prepare
	budget    Budget
	mode      string
	loadError error
}

// NewEngine starts an empty engine; Load folds the branch's records in.
func NewEngine(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Count == nil {
		cfg.Count = func(s string) int { return (len(s) + 3) / 4 }
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{cfg: cfg, ctx: ctx, cancel: cancel, mode: ModeObservational}
}

// Load folds one custom entry of the branch (root to leaf). A record that
// does not follow is skipped with a warning: the session stays readable.
func (e *Engine) Load(customType string, data json.RawMessage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.st.Apply(customType, data); err != nil {
		e.cfg.Logger.Warn("memory: skipping a record", "err", err)
		e.loadError = err
	}
}

// Close stops the background work and waits for it.
func (e *Engine) Close() {
	e.cancel()
	e.wg.Wait()
}

// State returns a copy of the memory state.
func (e *Engine) State() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st.Clone()
}

// Status reports the engine's state for the display.
func (e *Engine) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.statusLocked()
}

func (e *Engine) statusLocked() Status {
	_, raw := e.st.BufferedTokens()
	s := Status{
		Mode: e.mode, ObservedMessages: e.st.Observed, ObservationTokens: e.st.Tokens(),
		BufferedChunks: len(e.st.Buffered), BufferedTokens: raw, UnobservedTokens: e.lastRaw,
		ObserveTokens: e.budget.Observe, ReflectTokens: e.budget.Reflect,
		Observing: e.bufDone != nil, Reflecting: e.refDone != nil,
		ObserverCalls: e.calls, ReflectorCalls: e.refCalls, LastError: e.lastErr,
	}
	if r := e.st.Reflection; r != nil {
		s.LastReflection = &ReflectionInfo{TokensBefore: r.TokensBefore, Tokens: r.Tokens, Level: r.Level, At: r.Created}
	}
	return s
}

func (e *Engine) emit(ev Event) {
	if e.cfg.OnEvent == nil {
		return
	}
	e.mu.Lock()
	ev.Status = e.statusLocked()
	e.mu.Unlock()
	e.cfg.OnEvent(ev)
}

// index returns the position of id in msgs, -1 for "" (nothing observed),
// and an error when id is not there.
func index(msgs []Msg, id string) (int, error) {
	if id == "" {
		return -1, nil
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].EntryID == id {
			return i, nil
		}
	}
	return 0, fmt.Errorf("memory: entry %s is not on the branch", id)
}

func sumTokens(msgs []Msg) int {
	n := 0
	for i := range msgs {
		n += msgs[i].Tokens
	}
	return n
}

// boundary reports whether an observed range may end at msgs[j]: the raw
// history after it must not start with a tool result (its call would be
// gone).
func boundary(msgs []Msg, j int) bool {
	return j == len(msgs)-1 || msgs[j+1].Message == nil || msgs[j+1].Message.Role != llm.RoleToolResult
}

// Prepare runs before every model call with the branch's message entries
// (msgs, in order) and returns what the model sees. It activates buffered
// chunks once the raw history passes the observe threshold (or at once on
// an idle or provider trigger), which costs no model call; it observes on
// the hot path only when the raw history passes BlockFactor times the
// threshold despite the buffer; it starts background observations every
// BufferEvery tokens and a background reflection once the log passes the
// reflect threshold. An error leaves the session unchanged; the returned
// view is then the context before the failed step.
func (e *Engine) Prepare(ctx context.Context, msgs []Msg, observer llm.Model, b Budget, trig Trigger) (View, error) {
	e.mu.Lock()
	b = b.Shared(e.st.Tokens())
	e.budget = b
	e.mu.Unlock()
	if err := e.activate(ctx, msgs, b, trig); err != nil {
		return e.view(msgs), err
	}
	if err := e.observeIfBehind(ctx, msgs, observer, b); err != nil {
		return e.view(msgs), err
	}
	if err := e.reflectIfNeeded(ctx, observer, b); err != nil {
		return e.view(msgs), err
	}
	e.maybeBuffer(msgs, observer, b)
	return e.view(msgs), nil
}

func (e *Engine) view(msgs []Msg) View {
	e.mu.Lock()
	defer e.mu.Unlock()
	ci, err := index(msgs, e.st.Cursor)
	if err != nil {
		ci = -1
	}
	e.lastRaw = sumTokens(msgs[ci+1:])
	return View{Observations: e.st.Text(), Task: e.st.Task, Suggested: e.st.Suggested, RawFrom: ci + 1}
}

// activate moves buffered chunks into the observations, in order, until
// about Keep raw tokens remain (all of them for a trigger). Only chunks
// that end before the newest message and at a valid boundary are taken.
func (e *Engine) activate(ctx context.Context, msgs []Msg, b Budget, trig Trigger) error {
	e.mu.Lock()
	ci, err := index(msgs, e.st.Cursor)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	raw := sumTokens(msgs[ci+1:])
	if len(e.st.Buffered) == 0 || (raw < b.Observe && trig == TriggerNone) {
		e.mu.Unlock()
		return nil
	}
	var seqs []int
	cursor := ""
	for _, c := range e.st.Buffered {
		j, err := index(msgs, c.To)
		if err != nil {
			break
		}
		seqs, cursor = append(seqs, c.Seq), c.To
		if trig == TriggerNone && sumTokens(msgs[j+1:]) <= b.Keep {
			break
		}
	}
	if len(seqs) == 0 {
		e.mu.Unlock()
		return nil
	}
	reason := "threshold"
	if trig != TriggerNone {
		reason = string(trig)
	}
	err = e.commitLocked(ctx, Record{Op: "activate", Seqs: seqs, Cursor: cursor, Reason: reason})
	e.mu.Unlock()
	if err != nil {
		return err
	}
	e.emit(Event{Kind: "activate", Phase: "end", Reason: reason})
	return nil
}

// commitLocked applies rec to a copy of the state, appends it, and only
// then makes the copy current: a failed write changes nothing.
func (e *Engine) commitLocked(ctx context.Context, rec Record) error {
	next := e.st.Clone()
	if err := next.apply(rec); err != nil {
		return err
	}
	if _, err := e.cfg.Session.AppendCustom(context.WithoutCancel(ctx), CustomObservations, rec); err != nil {
		return fmt.Errorf("memory: record %s: %w", rec.Op, err)
	}
	e.st = next
	return nil
}

// rangeToObserve picks the unbuffered messages to observe: from the one
// after the last buffered chunk to the first valid boundary that leaves at
// most leave tokens raw (with leave 0, up to the newest message).
func rangeToObserve(msgs []Msg, after string, leave int) (from, to int, ok bool) {
	bi, err := index(msgs, after)
	if err != nil || bi+1 >= len(msgs) {
		return 0, 0, false
	}
	from = bi + 1
	tail := sumTokens(msgs[from:])
	for j := from; j < len(msgs); j++ {
		tail -= msgs[j].Tokens
		if tail <= leave && boundary(msgs, j) {
			return from, j, true
		}
	}
	return 0, 0, false
}

// observeChunk runs the observer over msgs[from:to+1] and builds the chunk
// (not yet recorded).
func (e *Engine) observeChunk(ctx context.Context, msgs []Msg, from, to int, observer llm.Model, b Budget, prior string, seq int) (Chunk, error) {
	parts := Serialize(msgs[from:to+1], e.cfg.Location)
	if len(parts) == 0 {
		// Nothing to observe (control prompts only): the chunk records that
		// the range was seen.
		return Chunk{Seq: seq, From: msgs[from].EntryID, To: msgs[to].EntryID, Output: Output{Observations: ""},
			MessageTokens: sumTokens(msgs[from : to+1]), Messages: to - from + 1, Created: e.cfg.Now().UnixMilli()}, nil
	}
	maxIn := max(b.Observe, 1000)
	out, calls, err := Observe(ctx, e.cfg.Streamer, observer, Batches(parts, maxIn, e.cfg.Count), prior, e.cfg.Now())
	e.mu.Lock()
	e.calls += calls
	e.mu.Unlock()
	if err != nil {
		return Chunk{}, err
	}
	return Chunk{Seq: seq, From: msgs[from].EntryID, To: msgs[to].EntryID, Output: out, Tokens: e.cfg.Count(out.Observations),
		MessageTokens: sumTokens(msgs[from : to+1]), Messages: to - from + 1, Calls: calls, Created: e.cfg.Now().UnixMilli()}, nil
}

// observeIfBehind observes on the hot path when, after activation, the raw
// history is still over BlockFactor times the threshold: it waits for a
// background observation in flight first, then observes what is left.
func (e *Engine) observeIfBehind(ctx context.Context, msgs []Msg, observer llm.Model, b Budget) error {
	for range 2 {
		e.mu.Lock()
		ci, err := index(msgs, e.st.Cursor)
		if err != nil {
			e.mu.Unlock()
			return err
		}
		raw := sumTokens(msgs[ci+1:])
		done := e.bufDone
		e.mu.Unlock()
		if raw <= b.BlockObserve() {
			return nil
		}
		if done == nil {
			break
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := e.activate(ctx, msgs, b, TriggerNone); err != nil {
			return err
		}
	}
	e.mu.Lock()
	ci, _ := index(msgs, e.st.Cursor)
	if sumTokens(msgs[ci+1:]) <= b.BlockObserve() {
		e.mu.Unlock()
		return nil
	}
	from, to, ok := rangeToObserve(msgs, e.st.lastBuffered(), b.Keep)
	seq, prior := e.st.NextSeq, e.st.Text()
	e.mu.Unlock()
	if ok {
		e.emit(Event{Kind: "observe", Phase: "start", Reason: "sync"})
		c, err := e.observeChunk(ctx, msgs, from, to, observer, b, prior, seq)
		if err == nil {
			e.mu.Lock()
			err = e.commitLocked(ctx, Record{Op: "buffer", Chunk: &c})
			e.mu.Unlock()
		}
		if err != nil {
			e.fail(err)
			e.emit(Event{Kind: "observe", Phase: "end", Reason: "sync", Error: err.Error()})
			return fmt.Errorf("observational memory: the observer failed (the session is unchanged): %w", err)
		}
		e.emit(Event{Kind: "observe", Phase: "end", Reason: "sync"})
	}
	// Everything buffered is activated now: the raw history must fit.
	e.mu.Lock()
	var seqs []int
	cursor := ""
	for _, c := range e.st.Buffered {
		seqs, cursor = append(seqs, c.Seq), c.To
	}
	var err error
	if len(seqs) > 0 {
		err = e.commitLocked(ctx, Record{Op: "activate", Seqs: seqs, Cursor: cursor, Reason: "sync"})
	}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	if len(seqs) > 0 {
		e.emit(Event{Kind: "activate", Phase: "end", Reason: "sync"})
	}
	return nil
}

func (e *Engine) fail(err error) {
	e.mu.Lock()
	e.lastErr = err.Error()
	e.mu.Unlock()
	e.cfg.Logger.Warn("memory", "err", err)
}

// maybeBuffer starts a background observation once BufferEvery tokens have
// accumulated past the last buffered chunk.
func (e *Engine) maybeBuffer(msgs []Msg, observer llm.Model, b Budget) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bufDone != nil || e.ctx.Err() != nil {
		return
	}
	after := e.st.lastBuffered()
	bi, err := index(msgs, after)
	if err != nil || sumTokens(msgs[bi+1:]) < b.BufferEvery {
		return
	}
	from, to, ok := rangeToObserve(msgs, after, 0)
	if !ok {
		return
	}
	snap := append([]Msg(nil), msgs[:to+1]...)
	seq, prior := e.st.NextSeq, e.st.Text()
	done := make(chan struct{})
	e.bufDone = done
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.emit(Event{Kind: "buffer", Phase: "start"})
		c, err := e.observeChunk(e.ctx, snap, from, to, observer, b, prior, seq)
		e.mu.Lock()
		if err == nil {
			// The one writer: the chunk is recorded only if it still
			// continues the buffered chunks (a hot-path observation may have
			// covered its messages meanwhile).
			if e.st.lastBuffered() != after || e.st.NextSeq != seq {
				err = errStale
			} else {
				err = e.commitLocked(e.ctx, Record{Op: "buffer", Chunk: &c})
			}
		}
		e.bufDone = nil
		close(done)
		e.mu.Unlock()
		ev := Event{Kind: "buffer", Phase: "end"}
		if err != nil && !errors.Is(err, errStale) {
			e.fail(err)
			ev.Error = err.Error()
		}
		e.emit(ev)
	}()
}

var errStale = errors.New("memory: the buffered chunk no longer follows (discarded)")

// WaitIdle waits for the background work in flight (tests, Close).
func (e *Engine) WaitIdle() {
	for {
		e.mu.Lock()
		bd, rd := e.bufDone, e.refDone
		e.mu.Unlock()
		if bd == nil && rd == nil {
			return
		}
		if bd != nil {
			<-bd
		}
		if rd != nil {
			<-rd
		}
	}
}

// View is the context for msgs as the state stands, without running
// anything.
func (e *Engine) View(msgs []Msg) View { return e.view(msgs) }
