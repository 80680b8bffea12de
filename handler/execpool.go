package handler

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/internal/proc"
)

// Limits of exec calls (--exec-concurrency, --exec-queue, and the exec
// handler's concurrency key).
const (
	// DefaultExecConcurrency is how many exec calls may run at once in
	// the whole server.
	DefaultExecConcurrency = 32
	// DefaultExecQueue is how many exec calls may wait for a slot; one
	// more is refused at once.
	DefaultExecQueue = 128
)

// Errors of an exec call that found no slot; the call's result says which.
var (
	// ErrExecBusy: the wait queue was full.
	ErrExecBusy = errors.New("the server is busy: too many calls of exec tools are running and waiting; try again later")
	// ErrExecWait: the call's timeout passed (or the call was cancelled)
	// while it waited for a slot.
	ErrExecWait = errors.New("no slot to run the command became free within the tool's timeout; try again later")
	// errShutdown: the server is shutting down and runs no new command.
	errExecShutdown = errors.New("the server is shutting down")
)

// Pool is the server's account of exec calls: a limit on how many run
// at once (global, and per tool through the handler's own slots), a bound
// on how many wait for a slot, and the process group of every command
// running, which shutdown kills (Kill). A nil *Pool limits nothing and
// tracks nothing (handlers built outside a server). Safe for concurrent
// use.
type Pool struct {
	slots    chan struct{} // one token per running call, in the whole server
	maxWait  int64
	waitingN atomic.Int64

	mu     sync.Mutex
	procs  map[*exec.Cmd]struct{}
	closed bool

	running, waiting prometheus.Gauge
	refused          *prometheus.CounterVec
}

// NewPool makes the pool of a server and registers its metrics.
// concurrency and queue ≤ 0 mean the defaults.
func NewPool(concurrency, queue int, reg prometheus.Registerer) *Pool {
	if concurrency <= 0 {
		concurrency = DefaultExecConcurrency
	}
	if queue <= 0 {
		queue = DefaultExecQueue
	}
	p := &Pool{
		slots: make(chan struct{}, concurrency), maxWait: int64(queue), procs: map[*exec.Cmd]struct{}{},
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpctl_serve_exec_running",
			Help: "exec handler commands running.",
		}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpctl_serve_exec_waiting",
			Help: "exec handler calls waiting for a slot (--exec-concurrency, the tool's concurrency).",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpctl_serve_exec_refused_total",
			Help: "exec handler calls refused without running, by reason: queue-full (--exec-queue calls already waited), timeout (no slot within the tool's timeout), shutdown.",
		}, []string{"reason"}),
	}
	for _, r := range []string{"queue-full", "timeout", "shutdown"} {
		p.refused.WithLabelValues(r)
	}
	reg.MustRegister(p.running, p.waiting, p.refused)
	return p
}

// acquire takes a slot of tool (the tool's own limit; nil: none) and one
// of the server's, waiting in the bounded queue while there is none; ctx
// bounds the wait. It returns the function that gives both back.
func (p *Pool) acquire(ctx context.Context, tool chan struct{}) (release func(), err error) {
	var global chan struct{}
	if p != nil {
		global = p.slots
	}
	if !tryTake(tool, global) {
		if err := p.wait(ctx, tool, global); err != nil {
			return nil, err
		}
	}
	if p != nil {
		p.running.Inc()
	}
	return func() {
		give(global)
		give(tool)
		if p != nil {
			p.running.Dec()
		}
	}, nil
}

// wait takes tool's slot, then global's, as they become free, counted in
// the wait queue; a full queue or the end of ctx is an error.
func (p *Pool) wait(ctx context.Context, tool, global chan struct{}) error {
	if p != nil {
		if p.waitingN.Add(1) > p.maxWait {
			p.waitingN.Add(-1)
			p.refused.WithLabelValues("queue-full").Inc()
			return ErrExecBusy
		}
		p.waiting.Inc()
		defer func() { p.waitingN.Add(-1); p.waiting.Dec() }()
	}
	if !take(ctx, tool) {
		p.refuse("timeout")
		return ErrExecWait
	}
	if !take(ctx, global) {
		give(tool)
		p.refuse("timeout")
		return ErrExecWait
	}
	return nil
}

func (p *Pool) refuse(reason string) {
	if p != nil {
		p.refused.WithLabelValues(reason).Inc()
	}
}

// tryTake takes a slot of both semaphores (nil: no limit) without
// waiting, or neither.
func tryTake(a, b chan struct{}) bool {
	if a != nil {
		select {
		case a <- struct{}{}:
		default:
			return false
		}
	}
	if b != nil {
		select {
		case b <- struct{}{}:
		default:
			give(a)
			return false
		}
	}
	return true
}

// take waits for a slot of sem (nil: no limit) until ctx ends; it
// reports whether it took one.
func take(ctx context.Context, sem chan struct{}) bool {
	if sem == nil {
		return true
	}
	select {
	case sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func give(sem chan struct{}) {
	if sem != nil {
		<-sem
	}
}

// started notes a command that started; after Kill it is killed at once
// and errExecShutdown returned.
func (p *Pool) started(cmd *exec.Cmd) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		proc.KillGroup(cmd)
		p.refuse("shutdown")
		return errExecShutdown
	}
	p.procs[cmd] = struct{}{}
	return nil
}

// ended notes a command whose process group was killed after it exited.
func (p *Pool) ended(cmd *exec.Cmd) {
	if p == nil {
		return
	}
	p.mu.Lock()
	delete(p.procs, cmd)
	p.mu.Unlock()
}

// Kill kills the process group of every running command, and of every
// command started from now on. Shutdown calls it when its timeout has
// passed, so no command outlives the server.
func (p *Pool) Kill() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for cmd := range p.procs {
		proc.KillGroup(cmd)
	}
}
