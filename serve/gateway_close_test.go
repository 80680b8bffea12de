package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/upstream"
)

// TestGatewayCloseDuringUpstreamStartClosesIt: an upstream a reload
// started while the server was closing was closed in a goroutine nothing
// waited for (go up.Close()), so the reload, and the server's Close, could
// return with it still open: a stdio server left running. Reproduction:
// the config gains upstream "b"; while the reload connects to it, the
// server closes. Now the reload closes "b" before it returns.
func TestGatewayCloseDuringUpstreamStartClosesIt(t *testing.T) {
	t.Parallel()
	closing := make(chan struct{})
	var b net.Conn // the gateway's end of b's connection
	var s *Server
	pipe := func(name string) func() (io.ReadWriteCloser, error) {
		return func() (io.ReadWriteCloser, error) {
			c, sc := net.Pipe()
			if name != "b" {
				go serveHostile(sc)
				return c, nil
			}
			b = c
			go serveHostile(sc)
			go func() {
				// Close once b's connection is set up, before the reload
				// registers it.
				<-closing
				s.Close()
			}()
			return c, nil
		}
	}
	cfg := "server: {name: g, version: 1.0.0}\nupstreams:\n  - name: a\n    http: {url: \"http://127.0.0.1:1/a\"}\n"
	s, path := startServer(t, cfg, func(o *testOptions) {
		o.UpstreamBackoff = 10 * time.Millisecond
		o.upstreamPipe = pipe
		o.upstreamStarted = func(name string) {
			if name == "b" {
				close(closing)
				waitUntil(t, "the server closing", s.gatewayClosedForTest)
			}
		}
	})
	writeFile(t, filepath.Dir(path), filepath.Base(path), cfg+"  - name: b\n    http: {url: \"http://127.0.0.1:1/b\"}\n")
	s.Reload(context.Background(), "test")
	// A write to a closed end fails at once; to an open one, at its
	// deadline.
	_ = b.SetWriteDeadline(time.Now())
	if _, err := b.Write([]byte("\n")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("the reload returned with upstream b, started while the server closed, still open (write: %v)", err)
	}
}

func (s *Server) gatewayClosedForTest() bool {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	return s.gw.closed
}

// TestGatewayCloseDuringUpstreamStartLeavesNoProcess: Server.Close did
// not wait for a reload that was starting a stdio upstream, so Close
// returned with the upstream's process still running. Reproduction: a
// reload adds upstream "b", sh -c 'echo $$ >pid; exec sleep 60' (it never
// answers initialize, and ignores the end of its stdin); while the reload
// waits for b's initialize, the server closes; when Close returned, sleep
// was still running.
func TestGatewayCloseDuringUpstreamStartLeavesNoProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a program")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := "server: {name: g, version: 1.0.0}\nupstreams:\n  - name: a\n    http: {url: \"http://127.0.0.1:1/a\"}\n"
	s, path := startServer(t, cfg, hostileUpstream, func(o *testOptions) {
		pipe := o.upstreamPipe
		o.upstreamPipe = func(name string) func() (io.ReadWriteCloser, error) {
			if name == "b" {
				return nil // b is started from its config, a real process
			}
			return pipe(name)
		}
	})
	script := fmt.Sprintf("echo $$ >%q; exec sleep 60", pidFile)
	writeFile(t, filepath.Dir(path), filepath.Base(path), cfg+fmt.Sprintf("  - name: b\n    stdio: [sh, -c, %q]\n    timeout: 30s\n", script))
	reloaded := make(chan struct{})
	go func() {
		defer close(reloaded)
		s.Reload(context.Background(), "test")
	}()
	var pid int
	waitUntil(t, "upstream b started", func() bool {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	s.Close()
	if state := processState(pid); state != "" && state != "Z" {
		t.Errorf("Close returned with upstream b's process (pid %d) in state %s", pid, state)
	}
	<-reloaded
	if state := processState(pid); state != "" {
		t.Errorf("the reload returned with upstream b's process (pid %d) in state %s", pid, state)
	}
}

// processState is the state of process pid as /proc reads it ("R", "S",
// "Z", …), "" when there is no such process.
func processState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	state, _, _ := strings.Cut(rest, " ")
	return state
}

// TestGatewayDuplicateUpstreamClosedWithoutHoldingTheBuild: two builds
// (an approval beside a reload) that start the same upstream keep the
// first; the other closed its duplicate before returning, which for a
// stdio server that ignores the end of its stdin (and SIGTERM) takes two
// terminate delays (4 s): the build, and every reload queued behind it,
// waited that long. Reproduction: both builds start "b", whose
// connection's Close blocks (as such a server's does); the losing build
// did not return. Now the duplicate is closed beside the build, and
// Server.Close waits for it.
func TestGatewayDuplicateUpstreamClosedWithoutHoldingTheBuild(t *testing.T) {
	t.Parallel()
	release, closed := make(chan struct{}), make(chan struct{}, 2)
	var started sync.WaitGroup
	started.Add(2)
	cfg := "server: {name: g, version: 1.0.0}\nupstreams:\n  - name: a\n    http: {url: \"http://127.0.0.1:1/a\"}\n"
	s, path := startServer(t, cfg, hostileUpstream, func(o *testOptions) {
		pipe := o.upstreamPipe
		o.upstreamPipe = func(name string) func() (io.ReadWriteCloser, error) {
			dial := pipe(name)
			if name != "b" {
				return dial
			}
			return func() (io.ReadWriteCloser, error) {
				c, err := dial()
				return slowClose{c, release, closed}, err
			}
		}
		o.upstreamStarted = func(name string) {
			if name == "b" { // both builds have started b before either keeps it
				started.Done()
				started.Wait()
			}
		}
	})
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free) // before s.Close, which waits for the duplicate's close
	uc := &serveconfig.UpstreamConfig{Name: "b", HTTP: &serveconfig.UpstreamHTTP{URL: "http://127.0.0.1:1/b"}}
	built := make(chan *upstream.Upstream, 2)
	for range 2 {
		go func() {
			up, _, err := s.upstreamConn(uc, filepath.Dir(path), false)
			if err != nil {
				t.Error(err)
			}
			built <- up
		}()
	}
	for range 2 {
		select {
		case up := <-built:
			if up == nil {
				t.Fatal("a build got no connection")
			}
		case <-closed:
			t.Fatal("the duplicate closed before the builds returned")
		case <-time.After(time.Minute):
			t.Fatal("a build waited for its duplicate's close")
		}
	}
	free()
	s.Close()
	if len(closed) != 2 {
		t.Errorf("Close returned with %d of b's 2 connections closed", len(closed))
	}
}

// slowClose is a connection whose Close waits for release, then reports
// to closed.
type slowClose struct {
	io.ReadWriteCloser
	release <-chan struct{}
	closed  chan<- struct{}
}

func (c slowClose) Close() error {
	<-c.release
	err := c.ReadWriteCloser.Close()
	c.closed <- struct{}{}
	return err
}
