package display

import "time"

// Clock is the time source of a Scheduler. Tests inject a fake one
// (display/displaytest.FakeClock) so batching is deterministic.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed. The
	// scheduler never cancels a timer: a timer that finds nothing due
	// re-arms or does nothing.
	AfterFunc(d time.Duration, f func())
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }
