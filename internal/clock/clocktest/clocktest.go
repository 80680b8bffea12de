// Package clocktest is the fake clock.Clock of tests: its time moves only
// when the test sets it, and its timers fire only when the test fires them,
// so a test decides the order of a timer and the events around it (a timer
// that fires late, after its Stop lost the race, included).
package clocktest

import (
	"fmt"
	"sync"
	"time"
)

// Fake is a clock.Clock for tests. The zero value is not usable: build one
// with New. All methods are safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

// timer is one AfterFunc: its function, its due time on the fake clock,
// and whether it was stopped.
type timer struct {
	f       func()
	due     time.Time
	stopped bool
}

// New returns a fake clock that reads now until the test moves it.
func New(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the fake time to now (backwards too). No timer fires.
func (c *Fake) Set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

// Advance moves the fake time forward by d. No timer fires.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// AfterFunc records a timer due d after the fake time; it fires only
// through Fire. Its stop function reports whether the timer was running.
func (c *Fake) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &timer{f: f, due: c.now.Add(d)}
	c.timers = append(c.timers, tm)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !tm.stopped
		tm.stopped = true
		return was
	}
}

// Timers returns how many timers AfterFunc started.
func (c *Fake) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Stopped reports whether the i-th timer (from 0, in start order) was
// stopped; false when there is no such timer.
func (c *Fake) Stopped(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return i < len(c.timers) && c.timers[i].stopped
}

// Due returns the fake time the i-th timer is due at; the zero time when
// there is no such timer.
func (c *Fake) Due(i int) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i >= len(c.timers) {
		return time.Time{}
	}
	return c.timers[i].due
}

// TB is the part of testing.TB that Fire uses.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Fire runs the i-th timer's function in the caller's goroutine, as the
// timer would when due, even if it was stopped (a Stop that lost the race
// with the timer). It fails the test when timer i was never started.
func (c *Fake) Fire(t TB, i int) {
	t.Helper()
	c.mu.Lock()
	if i >= len(c.timers) {
		n := len(c.timers)
		c.mu.Unlock()
		t.Fatal(fmt.Sprintf("timer %d was never started (%d started)", i, n))
		return
	}
	f := c.timers[i].f
	c.mu.Unlock()
	f()
}
