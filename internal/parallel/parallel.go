// Package parallel runs independent steps of one job on the machine's
// cores: serve's config parse and reload validation use it.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines and
// returns when all have returned. A panic in fn is raised again in the
// caller, where the reload's recovery handles it.
func Each(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Pointer[any]
	for range workers {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, &v)
				}
			}()
			for i := int(next.Add(1) - 1); i < n && panicked.Load() == nil; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
	if v := panicked.Load(); v != nil {
		panic(*v)
	}
}
