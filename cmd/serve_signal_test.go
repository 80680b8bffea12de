package cmd

import (
	"io"
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"
)

// Item 22 of the hardening issue (reproduction: a second SIGINT during
// the shutdown drain did not force exit). The first signal only starts
// the drain; the second closes the channel that ends it (serve's
// RunOptions.Force).
func TestHardening22SecondSignalForces(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 2)
	finished := make(chan struct{})
	defer close(finished)
	force := forceOnSecondSignal(sigs, finished, slog.New(slog.NewTextHandler(io.Discard, nil)))
	sigs <- os.Interrupt
	// The first signal is read before the second is sent (the buffer is
	// empty again), and it did not force.
	deadline := time.Now().Add(10 * time.Second)
	for len(sigs) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first signal was never read")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-force:
		t.Fatal("the first signal forced the shutdown")
	default:
	}
	sigs <- syscall.SIGTERM
	select {
	case <-force:
	case <-time.After(20 * time.Second):
		t.Fatal("the second signal did not force the shutdown")
	}
}
