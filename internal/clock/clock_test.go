package clock

import (
	"testing"
	"time"
)

// System.AfterFunc runs f, and its stop function stops a timer that has
// not fired.
func TestSystemAfterFunc(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	System.AfterFunc(0, func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("System.AfterFunc(0, f) never ran f")
	}
	stop := System.AfterFunc(time.Hour, func() { t.Error("a stopped timer fired") })
	if !stop() {
		t.Fatal("stop of a pending timer reported false")
	}
	if System.Now().IsZero() {
		t.Fatal("System.Now is the zero time")
	}
}
