package serve

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hungCloseTransport is a server transport whose connection's Close blocks
// until release is closed: it stands in for go-sdk v1.8.0's
// ServerSession.Close waiting forever for a 2026-07-28 client's
// subscriptions/listen that arrived just before it.
type hungCloseTransport struct {
	mcp.Transport
	release <-chan struct{}
}

func (t *hungCloseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &hungCloseConn{Connection: c, release: t.release}, nil
}

type hungCloseConn struct {
	mcp.Connection
	release <-chan struct{}
}

func (c *hungCloseConn) Close() error {
	<-c.release
	return c.Connection.Close()
}

// TestShutdownNotHeldByHungSessionClose: Run's shutdown closes every
// downstream session (the only place serve closes them; idle stateful
// HTTP sessions are expired by the go-sdk, and a stateful session declines
// 2026-07-28, so it never listens). A session whose Close hangs must not
// hold up the shutdown: Run logs it and returns.
func TestShutdownNotHeldByHungSessionClose(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	s, _ := startServer(t, baseConfig, func(o *testOptions) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	release := make(chan struct{})
	var released bool
	unblock := func() {
		if !released {
			released = true
			close(release)
		}
	}
	t.Cleanup(unblock)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), &hungCloseTransport{Transport: st, release: release}); err != nil {
		t.Fatal(err)
	}
	c := newSDKClient(t, ct, "")
	if _, err := c.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, cancel, done := runHTTP(t, s, RunOptions{ShutdownTimeout: time.Second})
	cancel()
	waitRun(t, done, "while a session's Close hangs")
	unblock()
	if !strings.Contains(logs.String(), "some sessions did not close in time") {
		t.Errorf("the abandoned session was not logged:\n%s", logs.String())
	}
}
