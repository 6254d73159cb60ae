// Package displaytest provides a fake clock for deterministic tests of
// display schedulers (and of anything built on them, such as rpc's display
// push).
package displaytest

import (
	"sort"
	"sync"
	"time"

	"github.com/pi-lsp/pi-lsp/display"
)

// FakeClock is a display.Clock that only moves when Advance is called.
// Timers fire synchronously inside Advance, in due order.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *FakeClock
	due     time.Time
	f       func()
	stopped bool
}

// NewFakeClock returns a clock set to start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for when the clock has advanced by d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) display.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, due: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop cancels the timer if it has not fired.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.stopped {
		return false
	}
	t.stopped = true
	return true
}

// Pending reports how many timers wait to fire.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// Advance moves the clock forward by d, firing every timer that falls due
// (including timers those timers schedule), each at its own due time.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].due.Before(c.timers[j].due) })
		var next *fakeTimer
		for i, t := range c.timers {
			if t.stopped {
				continue
			}
			if !t.due.After(end) {
				next = t
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
			}
			break
		}
		if next == nil {
			c.now = end
			c.timers = compact(c.timers)
			c.mu.Unlock()
			return
		}
		next.stopped = true
		if next.due.After(c.now) {
			c.now = next.due
		}
		c.mu.Unlock()
		next.f()
	}
}

func compact(ts []*fakeTimer) []*fakeTimer {
	out := ts[:0]
	for _, t := range ts {
		if !t.stopped {
			out = append(out, t)
		}
	}
	return out
}
