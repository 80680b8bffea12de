package parallel

import (
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	t.Parallel()
	const n = 1000
	var seen [n]atomic.Int32
	Each(n, func(i int) { seen[i].Add(1) })
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			t.Fatalf("fn(%d) ran %d times, want 1", i, c)
		}
	}
}

func TestEachRaisesPanicInCaller(t *testing.T) {
	t.Parallel()
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want boom", v)
		}
	}()
	Each(100, func(i int) {
		if i == 42 {
			panic("boom")
		}
	})
	t.Error("Each returned after a panic")
}
