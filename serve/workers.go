package serve

import "sync"

// maxIdleWorkers bounds the fast path's parked workers: enough for the
// calls a busy server has in flight at once, few enough that their kept
// stacks cost little.
const maxIdleWorkers = 64

// workers runs the fast path's calls on reused goroutines: a call goes to
// a parked worker when one waits, and to a new one otherwise. A worker
// keeps the stack its calls grew (canon's parser and the validator
// recurse), which a goroutine per call would grow and copy every time;
// after a call it parks unless maxIdleWorkers already do. close ends the
// parked workers, and every other one once its call returns.
type workers struct {
	mu     sync.Mutex
	idle   []chan func() // the parked workers' inboxes (buffered: 1)
	closed bool
}

func newWorkers() *workers { return &workers{} }

// run runs fn on a worker, a new one when none is parked.
func (w *workers) run(fn func()) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		in := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		in <- fn
		return
	}
	w.mu.Unlock()
	go w.loop(fn, make(chan func(), 1))
}

// loop runs fn, then each call handed to in while parked, until it is
// not parked (closed, or enough are).
func (w *workers) loop(fn func(), in chan func()) {
	for ok := true; ok; fn, ok = <-in {
		fn()
		if !w.park(in) {
			return
		}
	}
}

// park puts a worker's inbox among the idle ones; false: the worker ends.
func (w *workers) park(in chan func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.idle) >= maxIdleWorkers {
		return false
	}
	w.idle = append(w.idle, in)
	return true
}

// parked is how many workers are parked.
func (w *workers) parked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle)
}

// close ends the parked workers, and every other one once its call
// returns; run still runs calls after it, each on a goroutine of its own.
func (w *workers) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, in := range w.idle {
		close(in)
	}
	w.idle = nil
}
