package memory

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pi-lsp/pi-lsp/llm"
)

var testModel = llm.Model{Provider: "fake", ID: "m1", ContextWindow: 40000}

// Before each "model call" of a 30-turn session: buffering starts in the
// background every 20% of the threshold, and the activation at the
// threshold makes no observer call on the hot path.
func TestBufferingAheadAndActivationWithoutAModelCall(t *testing.T) {
	fm := &fakeModel{}
	fs := &fakeSession{}
	e := newTestEngine(t, fm, fs)
	b := fixedBudget(40000, Settings{Mode: ModeObservational}) // observe 9375, buffer every 1875
	activations, hotCalls := 0, 0
	for i := 1; i <= 30; i++ {
		fs.turn(i, 1200)
		before := fm.obsCalls.Load()
		v, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
		if err != nil {
			t.Fatal(err)
		}
		st := e.State()
		checkCoverage(t, st, fs.snapshot(), v)
		if n := strings.Count(strings.Join(recTypes(fs), ","), "activate"); n > activations {
			activations = n
			// The calls made during this Prepare were background buffering
			// started after the activation, never one it waited for.
			_ = before
		}
		if raw := sumTokens(fs.snapshot()[v.RawFrom:]); raw > b.BlockObserve() {
			t.Fatalf("turn %d: %d raw tokens left, over %d", i, raw, b.BlockObserve())
		}
		e.WaitIdle() // the model is instant; the background work lands before the next turn
	}
	for _, r := range fs.recs() {
		if strings.Contains(string(r.data), `"reason":"sync"`) {
			hotCalls++
		}
	}
	if activations == 0 {
		t.Fatal("no activation in 30 turns of 1.2k tokens with a 9375-token threshold")
	}
	if hotCalls != 0 {
		t.Fatalf("%d hot-path observations: the buffer did not keep ahead", hotCalls)
	}
	if fm.obsCalls.Load() == 0 {
		t.Fatal("no observer call")
	}
	st := e.State()
	if st.Text() == "" || st.Task != "reading files" || st.Suggested != "read the next file" {
		t.Fatalf("state after 30 turns: %+v", st)
	}
	// Replaying the records gives the same memory.
	if r := replay(t, fs); r.Text() != st.Text() || r.Cursor != st.Cursor || r.Task != st.Task {
		t.Fatal("replaying the records does not rebuild the same observations")
	}
}

func recTypes(fs *fakeSession) []string {
	var out []string
	for _, r := range fs.recs() {
		out = append(out, r.typ+":"+string(r.data[:min(len(r.data), 20)]))
	}
	return out
}

// An activation at the threshold makes no model call: the chunks are
// already buffered.
func TestActivationIsNotAModelCall(t *testing.T) {
	fm := &fakeModel{}
	fs := &fakeSession{}
	e := newTestEngine(t, fm, fs)
	b := fixedBudget(40000, Settings{})
	for i := 1; ; i++ {
		fs.turn(i, 1000)
		before := fm.obsCalls.Load()
		nrec := len(fs.recs())
		fm.gate = make(chan struct{}) // background calls started now block
		_, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
		if err != nil {
			t.Fatal(err)
		}
		activated := false
		for _, r := range fs.recs()[nrec:] {
			activated = activated || strings.Contains(string(r.data), `"op":"activate"`)
		}
		close(fm.gate)
		e.WaitIdle()
		fm.gate = nil
		if activated {
			// Any observer call counted during Prepare is a background one
			// it started and did not wait for (the gate was closed only
			// after Prepare returned).
			if d := fm.obsCalls.Load() - before; d > 1 {
				t.Fatalf("activation Prepare made %d observer calls", d)
			}
			return
		}
		if i > 40 {
			t.Fatal("no activation")
		}
	}
}

func TestHugeSingleMessageIsObservedInPieces(t *testing.T) {
	fm := &fakeModel{}
	fs := &fakeSession{}
	e := newTestEngine(t, fm, fs)
	b := fixedBudget(40000, Settings{})
	huge := strings.Repeat("the user pasted a log line 1234567890\n", 1500) // ~19k tokens by countTest
	fs.add(llm.RoleUser, huge, countTest(huge))
	v, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
	if err != nil {
		t.Fatal(err)
	}
	st := e.State()
	if st.Cursor != fs.snapshot()[0].EntryID || v.RawFrom != 1 {
		t.Fatalf("the huge message was not observed: cursor %q, raw from %d", st.Cursor, v.RawFrom)
	}
	if fm.obsCalls.Load() < 2 || st.Active[0].Calls < 2 {
		t.Fatalf("%d observer calls for a %d-token message (threshold %d)", fm.obsCalls.Load(), countTest(huge), b.Observe)
	}
}

func TestObserverFailureLeavesTheSessionUnchanged(t *testing.T) {
	fm := &fakeModel{observe: func(string) (string, error) { return "", errors.New("503 overloaded") }}
	fs := &fakeSession{}
	e := newTestEngine(t, fm, fs)
	b := fixedBudget(40000, Settings{})
	var err error
	for i := 1; i <= 20 && err == nil; i++ {
		fs.turn(i, 1500)
		_, err = e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
		e.WaitIdle()
	}
	if err == nil || !strings.Contains(err.Error(), "503 overloaded") || !strings.Contains(err.Error(), "unchanged") {
		t.Fatalf("error %v", err)
	}
	if n := len(fs.recs()); n != 0 {
		t.Fatalf("%d records written by a failing observer", n)
	}
	if e.Status().LastError == "" {
		t.Fatal("the status does not report the failure")
	}
}

// The reflector's ladder: answers that are not smaller or degenerate move
// down a rung; the accepted one records its level.
func TestReflectorLadder(t *testing.T) {
	log := strings.Repeat("Date: Dec 4, 2025\n", 1) + func() string {
		var b strings.Builder
		for i := range 400 {
			fmt.Fprintf(&b, "* 🟡 (10:%02d) read f%03d.txt: %d numbered lines\n", i%60, i, i*7)
		}
		return b.String()
	}()
	tokens := countTest(log)
	var levels []string
	fm := &fakeModel{reflect: func(p string, n int) (string, error) {
		for _, g := range CompressionLadder {
			if strings.Contains(p, g) {
				levels = append(levels, g[:18])
			}
		}
		switch n {
		case 1:
			return "<observations>\n" + log + "* 🟢 extra\n</observations>", nil // not smaller
		case 2:
			return "<observations>\n" + strings.Repeat("* 🔴 loop\n", 50) + "</observations>", nil // degenerate
		}
		return "<observations>\nDate: Dec 4, 2025\n* ✅ (10:00) read 400 files of numbered lines\n</observations>", nil
	}}
	text, level, calls, err := Reflect(context.Background(), fm, testModel, log, tokens, tokens/2, countTest, fixedNow())
	if err != nil || level != 2 || calls != 3 || !strings.Contains(text, "400 files") {
		t.Fatalf("level %d, %d calls, %q, %v", level, calls, text, err)
	}
	if len(levels) != 3 || levels[0] != CompressionLadder[0][:18] || levels[2] != CompressionLadder[2][:18] {
		t.Fatalf("guidance sent: %v", levels)
	}
}

// A reflection that never gets smaller (or comes back empty) leaves the
// observations as they were: never replaced by an empty or failed one.
func TestEmptyOrFailedReflectionIsNeverRecorded(t *testing.T) {
	for name, answer := range map[string]string{
		"empty":       "<observations>\n</observations>",
		"not smaller": "", // filled below
	} {
		t.Run(name, func(t *testing.T) {
			fs := &fakeSession{}
			fm := &fakeModel{}
			e := newTestEngine(t, fm, fs)
			b := fixedBudget(40000, Settings{ReflectTokens: 1000, ObserveTokens: 3000})
			fm.reflect = func(p string, _ int) (string, error) {
				if answer == "" {
					return "<observations>\n" + p + "\n* more\n</observations>", nil
				}
				return answer, nil
			}
			var err error
			for i := 1; i <= 40 && err == nil; i++ {
				fs.turn(i, 800)
				_, err = e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
				e.WaitIdle()
			}
			for _, r := range fs.recs() {
				if r.typ == CustomReflection {
					t.Fatalf("a rejected reflection was recorded: %s", r.data)
				}
			}
			if err == nil || !errors.Is(err, ErrReflectionRejected) {
				t.Fatalf("error %v, want the rejected reflection on the hot path", err)
			}
			if fm.refCalls.Load() < int32(len(CompressionLadder)) {
				t.Fatalf("%d reflector calls: the ladder was not climbed", fm.refCalls.Load())
			}
			if st := e.State(); st.Text() == "" || st.Reflection != nil {
				t.Fatal("the observations were lost")
			}
		})
	}
}

// The cursor invariant under concurrent appends: messages arrive while
// background observations and reflections run and commit; no chunk is lost,
// no message is covered twice or skipped, and a replay agrees.
func TestCursorInvariantUnderConcurrentAppends(t *testing.T) {
	for round := range 5 {
		fs := &fakeSession{}
		fm := &fakeModel{}
		e := newTestEngine(t, fm, fs)
		b := fixedBudget(40000, Settings{ReflectTokens: 1500, ObserveTokens: 4000})
		var wg sync.WaitGroup
		var appended atomic.Bool
		wg.Add(1)
		go func() { // the appender: turns land at any time
			defer wg.Done()
			defer appended.Store(true)
			for i := 1; i <= 120; i++ {
				fs.turn(i, 300+round*50)
				runtime.Gosched()
			}
		}()
		for !appended.Load() {
			msgs := fs.snapshot()
			// Cut at a valid point: never right after a tool call.
			for len(msgs) > 0 && len(msgs[len(msgs)-1].Message.ToolCalls()) > 0 {
				msgs = msgs[:len(msgs)-1]
			}
			v, err := e.Prepare(context.Background(), msgs, testModel, b, TriggerNone)
			if err != nil {
				t.Fatal(err)
			}
			checkCoverage(t, e.State(), msgs, v)
		}
		wg.Wait()
		if _, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone); err != nil {
			t.Fatal(err)
		}
		e.WaitIdle()
		st := e.State()
		msgs := fs.snapshot()
		checkCoverage(t, st, msgs, e.view(msgs))
		r := replay(t, fs)
		if r.Text() != st.Text() || r.Cursor != st.Cursor || len(r.Buffered) != len(st.Buffered) {
			t.Fatalf("round %d: replay differs from the live state", round)
		}
		if fm.refCalls.Load() == 0 || st.Reflection == nil {
			t.Fatalf("round %d: no reflection raced the appends (%d reflector calls)", round, fm.refCalls.Load())
		}
	}
}

// An activation that lands while a reflection is running keeps its chunk
// after the reflection.
func TestReflectionRacingActivationKeepsTheChunk(t *testing.T) {
	fs := &fakeSession{}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	fm := &fakeModel{reflect: func(string, int) (string, error) {
		started <- struct{}{}
		<-release
		return "<observations>\nDate: Dec 4, 2025\n* 🔴 (10:00) condensed\n</observations>", nil
	}}
	e := newTestEngine(t, fm, fs)
	b := fixedBudget(40000, Settings{ObserveTokens: 2000})
	nb := b
	nb.Reflect = 1 << 30 // no reflection yet
	i := 0
	for e.State().Tokens() < 200 {
		i++
		fs.turn(i, 700)
		if _, err := e.Prepare(context.Background(), fs.snapshot(), testModel, nb, TriggerNone); err != nil {
			t.Fatal(err)
		}
		waitBuffer(e)
	}
	// The log is just at the threshold: the reflection starts in the
	// background and nothing waits for it.
	b.Reflect = e.State().Tokens()
	if _, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone); err != nil {
		t.Fatal(err)
	}
	<-started
	through := e.State().Active[len(e.State().Active)-1].Seq
	// More turns while the reflector works: activations after its snapshot.
	for k := 0; k < 6; k++ {
		i++
		fs.turn(i, 700)
		if _, err := e.Prepare(context.Background(), fs.snapshot(), testModel, nb, TriggerNone); err != nil {
			t.Fatal(err)
		}
		waitBuffer(e)
	}
	later := e.State().Active
	close(release)
	e.WaitIdle()
	st := e.State()
	if st.Reflection == nil || st.Reflection.Through != through {
		t.Fatalf("reflection %+v, want through %d", st.Reflection, through)
	}
	for _, c := range later {
		if c.Seq > through && !hasChunk(st.Active, c.Seq) {
			t.Fatalf("chunk %d, activated during the reflection, was lost", c.Seq)
		}
	}
	if !strings.HasPrefix(st.Text(), "Date: Dec 4, 2025\n* 🔴 (10:00) condensed") || len(st.Active) == 0 {
		t.Fatalf("text after the reflection:\n%s", st.Text())
	}
}

func waitBuffer(e *Engine) {
	for {
		e.mu.Lock()
		d := e.bufDone
		e.mu.Unlock()
		if d == nil {
			return
		}
		<-d
	}
}

func hasChunk(cs []Chunk, seq int) bool {
	for _, c := range cs {
		if c.Seq == seq {
			return true
		}
	}
	return false
}

// The idle trigger activates what is buffered below the threshold.
func TestIdleTriggerActivatesBelowThreshold(t *testing.T) {
	fs := &fakeSession{}
	e := newTestEngine(t, &fakeModel{}, fs)
	b := fixedBudget(40000, Settings{})
	fs.turn(1, 2500)
	if _, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone); err != nil {
		t.Fatal(err)
	}
	e.WaitIdle()
	if st := e.State(); len(st.Buffered) != 1 || len(st.Active) != 0 {
		t.Fatalf("after one turn: %d buffered, %d active", len(st.Buffered), len(st.Active))
	}
	fs.add(llm.RoleUser, "back after lunch", 5)
	v, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerIdle)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.State(); len(st.Active) != 1 || v.Observations == "" || v.RawFrom != 4 {
		t.Fatalf("idle trigger: %d active, raw from %d", len(st.Active), v.RawFrom)
	}
}

// TestSharedBudgetActivatesLater: with shareTokenBudget the raw history
// grows past the base threshold while the log is small, activates below
// observe+reflect (times BlockFactor at most), and never on the hot path.
func TestSharedBudgetActivatesLater(t *testing.T) {
	fm := &fakeModel{}
	fs := &fakeSession{}
	e := newTestEngine(t, fm, fs)
	b := BudgetFor(40000, Settings{Mode: ModeObservational})
	if !b.Share {
		t.Fatal("the default budget does not share")
	}
	maxRaw, firstActivation := 0, 0
	for i := 1; i <= 40; i++ {
		fs.turn(i, 1200)
		v, err := e.Prepare(context.Background(), fs.snapshot(), testModel, b, TriggerNone)
		if err != nil {
			t.Fatal(err)
		}
		checkCoverage(t, e.State(), fs.snapshot(), v)
		raw := sumTokens(fs.snapshot()[v.RawFrom:])
		maxRaw = max(maxRaw, raw)
		if in := b.Shared(e.State().Tokens()); raw > in.BlockObserve() {
			t.Fatalf("turn %d: %d raw tokens, over %d", i, raw, in.BlockObserve())
		}
		if firstActivation == 0 && strings.Contains(strings.Join(recTypes(fs), ","), "activate") {
			firstActivation = i
		}
		e.WaitIdle()
	}
	if maxRaw <= b.Observe {
		t.Fatalf("the raw history never grew past the base threshold %d (max %d)", b.Observe, maxRaw)
	}
	if firstActivation == 0 {
		t.Fatal("no activation in 40 turns")
	}
	for _, r := range fs.recs() {
		if strings.Contains(string(r.data), `"reason":"sync"`) {
			t.Fatalf("a hot-path observation: %s", r.data)
		}
	}
	t.Logf("first activation at turn %d, largest raw history %d tokens (base threshold %d)", firstActivation, maxRaw, b.Observe)
}
