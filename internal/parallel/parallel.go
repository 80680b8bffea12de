// Package parallel runs independent steps of one job on the machine's
// cores: serve's config parse and reload validation use it.
package parallel

import (
	"runtime"
	"sync/atomic"
)

// Each calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines, the caller's
// among them, and returns when every call has returned. A panic in fn is
// raised again in the caller, where the reload's recovery handles it; the
// calls not yet started then are skipped.
//
// The caller takes indexes too and waits only for calls that other
// goroutines started: on a busy machine a helper goroutine that is not
// scheduled before the caller has taken every index costs the caller
// nothing (it finds no index left and returns).
func Each(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	e := &each{n: int64(n), fn: fn, finished: make(chan struct{})}
	for range workers - 1 {
		go e.work()
	}
	e.work()
	<-e.finished
	if v := e.panicked.Load(); v != nil {
		panic(*v)
	}
}

// each is one call of Each: the next index to take, how many are done.
type each struct {
	n          int64
	fn         func(int)
	next, done atomic.Int64
	panicked   atomic.Pointer[any]
	finished   chan struct{} // closed when done reaches n
}

// work takes indexes until none is left.
func (e *each) work() {
	for i := e.next.Add(1) - 1; i < e.n; i = e.next.Add(1) - 1 {
		if e.panicked.Load() == nil {
			e.call(int(i))
		}
		if e.done.Add(1) == e.n {
			close(e.finished)
		}
	}
}

// call runs fn(i), recording its panic.
func (e *each) call(i int) {
	defer func() {
		if v := recover(); v != nil {
			e.panicked.CompareAndSwap(nil, &v)
		}
	}()
	e.fn(i)
}
