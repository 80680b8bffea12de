package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
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
