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

var _ display.Clock = (*FakeClock)(nil)

type fakeTimer struct {
	due time.Time
	f   func()
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
func (c *FakeClock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, &fakeTimer{due: c.now.Add(d), f: f})
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
		if len(c.timers) == 0 || c.timers[0].due.After(end) {
			c.now = end
			c.mu.Unlock()
			return
		}
		next := c.timers[0]
		c.timers = c.timers[1:]
		if next.due.After(c.now) {
			c.now = next.due
		}
		c.mu.Unlock()
		next.f()
	}
}
