package upstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/upstream"
)

// Reproduction: an upstream whose tools/call timeout is shorter than its
// start (timeout: 2s in front of an npx server that takes longer to
// start) never started: Options.Timeout bounded the start as well as each
// call, though the config documents it as one forwarded call's bound.
func TestUpstreamStartNotBoundByTheCallTimeout(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	s.initDelay = 300 * time.Millisecond
	t.Cleanup(s.close)
	u, err := upstream.Start(context.Background(), upstream.Options{Name: "slow", Pipe: s.dial, Timeout: 50 * time.Millisecond, MinBackoff: time.Hour})
	if err != nil {
		t.Fatalf("Start with a call timeout shorter than the start: %v", err)
	}
	t.Cleanup(u.Close)
	if _, err := u.CallRaw(context.Background(), []byte(`{"name":"t","arguments":{"mode":"never"}}`)); !errors.Is(err, upstream.ErrTimeout) {
		t.Fatalf("a call still gets the call timeout: err = %v, want ErrTimeout", err)
	}
}

// StartTimeout bounds the start: connecting, initialize and the first
// tools/list.
func TestUpstreamStartTimeoutBoundsTheStart(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	s.initDelay = 2 * time.Second
	t.Cleanup(s.close)
	_, err := upstream.Start(context.Background(), upstream.Options{Name: "slow", Pipe: s.dial, StartTimeout: 100 * time.Millisecond})
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.Name != "slow" || !errors.Is(err, upstream.ErrStartTimeout) || !strings.Contains(err.Error(), "cannot start: not started within 100ms (startTimeout)") {
		t.Fatalf("err = %v, want the upstream's cannot-start error", err)
	}
}

// A restart after a crash is a start: it gets StartTimeout, not Timeout.
func TestUpstreamRestartNotBoundByTheCallTimeout(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	t.Cleanup(s.close)
	u, err := upstream.Start(context.Background(), upstream.Options{Name: "slow", Pipe: s.dial, Timeout: 50 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.Close)
	s.mu.Lock()
	s.initDelay = 300 * time.Millisecond
	s.mu.Unlock()
	restarts := u.Status().Restarts
	s.crash() // the server crashes; the next one starts slowly
	deadline := time.Now().Add(10 * time.Second)
	for u.Status().Restarts == restarts {
		if time.Now().After(deadline) {
			t.Fatalf("no restart within 10s: a restart slower than the call timeout never succeeds")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Reproduction: a stdio server that did not start within StartTimeout was
// shut down as a running one is, gracefully: its stdin closed, then
// SIGTERM after a terminate delay, so Start failed long after the bound
// (`startTimeout: 300ms` in front of `sleep 300`, which ignores its stdin,
// failed after 2.3 s, "server signal: terminated"; one that ignored
// SIGTERM too, after 5.3 s). Now the process group is killed when the
// start's time is up.
func TestUpstreamStartTimeoutKillsTheServer(t *testing.T) {
	t.Parallel()
	_, err := upstream.Start(context.Background(), upstream.Options{Name: "sleeper", Command: []string{"sleep", "300"}, StartTimeout: 300 * time.Millisecond})
	if !errors.Is(err, upstream.ErrStartTimeout) || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("err = %v, want a start timeout whose server was killed", err)
	}
}
