package serve

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
)

// TestWorkersReuseAndEnd: calls handed to workers one after another run
// on one reused worker (a goroutine per call would leave one parked per
// call), close ends the parked workers (goleak), and calls handed after
// close still run.
func TestWorkersReuseAndEnd(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := newWorkers()
	ran := make(chan int)
	for i := range 3 {
		w.run(func() { ran <- i })
		if got := <-ran; got != i {
			t.Fatalf("ran call %d, want %d", got, i)
		}
		waitCall(t, "the worker to park", func() error { return wantParked(w, 1) })
	}
	w.close()
	if err := wantParked(w, 0); err != nil {
		t.Fatal(err)
	}
	w.run(func() { ran <- 3 })
	if got := <-ran; got != 3 {
		t.Fatalf("after close, ran call %d, want 3", got)
	}
}

func wantParked(w *workers, n int) error {
	if got := w.parked(); got != n {
		return fmt.Errorf("%d workers parked, want %d", got, n)
	}
	return nil
}
