package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

// Reproduction: `timeout: 2s` in front of an npx server that takes longer
// to start never started it ("cannot start: context deadline exceeded"):
// an upstream's timeout, documented as one forwarded call's bound, bounded
// each start too. A start now has startTimeout (default 60s).
func TestGatewayUpstreamStartsSlowerThanItsCallTimeout(t *testing.T) {
	t.Parallel()
	bin := mutableProgram(t)
	s, _ := startServer(t, fmt.Sprintf("server: {name: slow-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    stdio: [%q, -start-delay, 1s]\n    timeout: 100ms\n", bin))
	if st := s.upstreamStatus(); len(st) != 1 || st[0].State != "connected" {
		t.Fatalf("upstream status %+v, want m connected", st)
	}
}

// startTimeout bounds the start: a server slower than it refuses the
// config with a located error that names the bound.
func TestGatewayUpstreamStartTimeout(t *testing.T) {
	t.Parallel()
	bin := mutableProgram(t)
	path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", fmt.Sprintf("server: {name: slow-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    stdio: [%q, -start-delay, 30s]\n    startTimeout: 200ms\n", bin))
	s, err := New(context.Background(), Options{ConfigPath: path, UpstreamBackoff: time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("New served an upstream that did not start within its startTimeout")
	}
	if !errors.Is(err, toolset.ErrInput) {
		t.Errorf("error does not wrap toolset.ErrInput: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `mcpctl.serve.yaml:3:5: upstream "m"`) || !strings.Contains(msg, "not started within 200ms (startTimeout)") {
		t.Errorf("error %q does not say where, which upstream and which bound", msg)
	}
	if !errors.Is(err, upstream.ErrStartTimeout) {
		t.Errorf("error does not wrap upstream.ErrStartTimeout: %v", err)
	}
}

// Reproduction: SIGTERM (or Ctrl-C) while `mcpctl serve` started its
// upstreams did not stop it: New's first reload started them with the
// server's own context, not New's, so the process waited out the start,
// up to startTimeout (`startTimeout: 1h` in front of `stdio: [sleep,
// "300"]` ended 5 minutes after `timeout 5 mcpctl serve`). Now the end of
// New's context ends the starts under way, and New returns its cause.
func TestGatewayNewEndsWhenItsContextEndsDuringAStart(t *testing.T) {
	t.Parallel()
	path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", "server: {name: g, version: 1.0.0}\nupstreams:\n  - name: m\n    stdio: [sleep, \"300\"]\n    startTimeout: 1h\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		s, err := New(ctx, Options{ConfigPath: path})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // the start is under way (or not yet: either way)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("New after its context ended: err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("New still starting 30s after its context ended (startTimeout 1h)")
	}
}
