package clocktest

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func TestFakeTime(t *testing.T) {
	t.Parallel()
	c := New(t0)
	c.Advance(time.Minute)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after Advance(1m): %v", got)
	}
	c.Set(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("after Set: %v", got)
	}
}

// A timer fires only through Fire, also after Stop (a stop that lost the
// race); its stop function reports whether it was running.
func TestFakeTimers(t *testing.T) {
	t.Parallel()
	c := New(t0)
	fired := 0
	stop := c.AfterFunc(time.Hour, func() { fired++ })
	c.Advance(2 * time.Hour)
	if fired != 0 || c.Timers() != 1 || c.Stopped(0) {
		t.Fatalf("fired %d, %d timers, stopped %v: a fake timer must wait for Fire", fired, c.Timers(), c.Stopped(0))
	}
	if !c.Due(0).Equal(t0.Add(time.Hour)) {
		t.Fatalf("due %v, want %v", c.Due(0), t0.Add(time.Hour))
	}
	if !stop() || stop() || !c.Stopped(0) {
		t.Fatal("stop: true the first time, false after, and Stopped reports it")
	}
	c.Fire(t, 0)
	if fired != 1 {
		t.Fatalf("fired %d after Fire", fired)
	}
}

type fatalRecorder struct{ msg string }

func (*fatalRecorder) Helper()             {}
func (r *fatalRecorder) Fatal(args ...any) { r.msg = fmt.Sprint(args...) }

func TestFakeFireUnknownTimer(t *testing.T) {
	t.Parallel()
	var r fatalRecorder
	New(t0).Fire(&r, 0)
	if want := "timer 0 was never started (0 started)"; r.msg != want {
		t.Fatalf("Fire of a missing timer: %q, want %q", r.msg, want)
	}
}
