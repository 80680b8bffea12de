package serve

import (
	"fmt"
	"sync"
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

// TestAdversarialFast2WorkersBlockedAndMany: a call that blocks (until
// released) holds its worker only: 10,000 calls handed while it blocks
// all run, at most maxIdleWorkers park afterwards, and after close and
// the blocked call's release no worker is left (goleak).
func TestAdversarialFast2WorkersBlockedAndMany(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := newWorkers()
	release := make(chan struct{})
	w.run(func() { <-release })
	var wg sync.WaitGroup
	const n = 10000
	wg.Add(n)
	for range n {
		w.run(wg.Done)
	}
	wg.Wait()
	waitCall(t, "workers to park", func() error {
		if got := w.parked(); got > maxIdleWorkers || got == 0 {
			return fmt.Errorf("%d workers parked, want 1…%d", got, maxIdleWorkers)
		}
		return nil
	})
	w.close()
	close(release)
	ran := make(chan struct{})
	w.run(func() { close(ran) })
	<-ran
}
