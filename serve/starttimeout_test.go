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
