package acp

import (
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// simulate streams an answer of n bytes in 4-byte deltas, one every gap,
// through c on a fake clock (the worker looks at the deadline after each
// delta) and returns the chunk lines' sizes and the longest time text
// waited.
func simulate(c coalescer, envelope, n int, gap time.Duration) (chunks []int, longest time.Duration) {
	t0 := time.Unix(0, 0)
	var first, last time.Time
	pending := 0
	flush := func(now time.Time) {
		if pending > 0 {
			chunks = append(chunks, envelope+pending)
			longest = max(longest, now.Sub(first))
		}
		pending = 0
	}
	now := t0
	for sent := 0; sent < n; sent += 4 {
		// Time passes to the next delta; a deadline in between fires.
		next := now.Add(gap)
		if pending > 0 {
			if d := c.due(pending, first, last); !d.After(next) {
				flush(later(d, now))
			}
		}
		now = next
		if pending == 0 {
			first = now
		}
		pending += min(4, n-sent)
		last = now
	}
	flush(now) // the end of the turn
	return chunks, longest
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TestCoalescerKeepsChunksWorthTheirEnvelope: a 1,229-byte answer at 200 to
// 800 characters a second costs at most twice its text in chunk lines, no
// text waits longer than the latency cap, and a fast stream still goes out
// on the display scheduler's 500 ms cap.
func TestCoalescerKeepsChunksWorthTheirEnvelope(t *testing.T) {
	env := chunkEnvelope(sdk.SessionId("01a232ec-3eb7-7822-90fb-c8f60544aedb"))
	if env < 150 || env > 250 {
		t.Fatalf("envelope of an empty chunk line: %d bytes", env)
	}
	c := coalescer{debounce: 250 * time.Millisecond, cap: 500 * time.Millisecond, maxLatency: DefaultMaxLatency, worth: int(float64(env) * DefaultWorth)}
	const answer = 1229
	for _, cps := range []int{200, 400, 800, 4000} {
		gap := time.Second * 4 / time.Duration(cps)
		chunks, longest := simulate(c, env, answer, gap)
		total := 0
		for _, n := range chunks {
			total += n
		}
		ratio := float64(total) / answer
		t.Logf("%d chars/s: %d chunks, %.2fx, longest wait %s", cps, len(chunks), ratio, longest)
		if ratio > 2 {
			t.Errorf("%d chars/s: chunk lines weigh %.2fx the answer, want <= 2x", cps, ratio)
		}
		if longest > DefaultMaxLatency {
			t.Errorf("%d chars/s: text waited %s, over the %s cap", cps, longest, DefaultMaxLatency)
		}
		if cps >= 800 && longest > c.cap {
			t.Errorf("%d chars/s: text waited %s; a fast stream keeps the %s cap", cps, longest, c.cap)
		}
	}
	// Text that is not worth its envelope waits for the latency cap, not
	// for the pause.
	t0 := time.Unix(0, 0)
	if d := c.due(10, t0, t0); !d.Equal(t0.Add(DefaultMaxLatency)) {
		t.Errorf("10 bytes are due at %s, want at the latency cap", d.Sub(t0))
	}
	if d := c.due(c.worth, t0, t0); !d.Equal(t0.Add(c.debounce)) {
		t.Errorf("text worth its envelope is due at %s, want after the pause", d.Sub(t0))
	}
}
