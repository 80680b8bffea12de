package serve

import "sync"

// reloadQueue runs at most one reload at a time, with at most one queued
// behind it: a reload asked for while one runs queues, and every further
// one asked for before the queued one starts joins it and gets its result.
// The queued reload reads the config after the running one is done, so
// the newest files are always considered, and a burst of triggers (six
// POST /reload on a 2,001-tool config) costs two builds, not six.
type reloadQueue struct {
	mu      sync.Mutex
	running bool
	next    *queuedReload
	// waiting counts callers queued or joined (tests).
	waiting int
}

type queuedReload struct {
	start chan struct{} // closed when it may run
	done  chan struct{} // closed when res is set
	res   ReloadResult
}

// do runs run now, or after the running reload; stale, called when a
// reload queues behind a running one, marks the running one's candidate
// as superseded (a newer trigger came while it was being built).
func (q *reloadQueue) do(run func() ReloadResult, stale func()) ReloadResult {
	q.mu.Lock()
	if !q.running {
		q.running = true
		q.mu.Unlock()
		defer q.finish()
		return run()
	}
	q.waiting++
	next, leader := q.next, false
	if next == nil {
		next, leader = &queuedReload{start: make(chan struct{}), done: make(chan struct{})}, true
		q.next = next
		stale()
	}
	q.mu.Unlock()
	if !leader {
		<-next.done
		return next.res
	}
	<-next.start
	defer q.finish()
	defer close(next.done)
	next.res = run()
	return next.res
}

// finish hands the turn to the queued reload, if any.
func (q *reloadQueue) finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next == nil {
		q.running = false
		return
	}
	next := q.next
	q.next = nil
	q.waiting = 0
	close(next.start)
}
