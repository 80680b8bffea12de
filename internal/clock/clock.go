// Package clock is the time source of code whose behaviour depends on the
// time of day: the server's gate.allow expiries and sunsets, session pins,
// session start times and the name of a record file. Production code uses
// System; tests inject a fake (package clocktest) and move it or fire its
// timers themselves, so no test waits for, or asserts, a wall-clock time.
//
// Durations measured for metrics and logs (a call's latency, a reload's
// duration) and deadlines on connections read time.Now directly: they are
// not decisions a test needs to steer.
package clock

import "time"

// Clock tells the time and runs functions later.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// AfterFunc runs f in its own goroutine once d has passed and returns
	// the timer's stop function, which reports whether it stopped the
	// timer before f ran (as time.Timer.Stop).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// System is the wall clock: time.Now and time.AfterFunc.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time { return time.Now() }

func (system) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
