package upstream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// stallConn is the client's end of a net.Pipe that counts the writes
// begun (writes, when not nil) and those given up at their deadline.
type stallConn struct {
	net.Conn
	stalled, writes *atomic.Int32
}

func (c stallConn) Write(p []byte) (int, error) {
	if c.writes != nil {
		c.writes.Add(1)
	}
	n, err := c.Conn.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.stalled.Add(1)
	}
	return n, err
}

// serveUntilStall answers initialize, tools/list and tools/call over c
// (stdio framing) and, once it has answered a call of the tool "stall",
// reads nothing more until release is closed.
func serveUntilStall(c net.Conn, release <-chan struct{}) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		result := `{"content":[]}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}},{"name":"stall","inputSchema":{"type":"object"}}]}`
		}
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result); err != nil {
			return
		}
		if m.Params.Name == "stall" {
			<-release
			return
		}
	}
}

// TestAdversarialStallGoSDKWritesDoNotQueue: go-sdk calls to an upstream
// that stopped reading wait for one write deadline, not one each.
// Reproduction: 6 concurrent calls through the go-sdk (Upstream.Call)
// after the server stopped reading; the go-sdk writes one request at a
// time and none honours the call's context once started, so each waited
// the full timeout behind the one before (the 6th answered after 6
// timeouts), and the go-sdk, which holds a failed write as a broken
// connection, closed it only after the last.
func TestAdversarialStallGoSDKWritesDoNotQueue(t *testing.T) {
	t.Parallel()
	var stalled atomic.Int32
	release := make(chan struct{})
	defer close(release)
	u, err := upstream.Start(context.Background(), upstream.Options{
		Name: "p", Timeout: 300 * time.Millisecond, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Pipe: func() (io.ReadWriteCloser, error) {
			c, s := net.Pipe()
			go serveUntilStall(s, release)
			return stallConn{Conn: c, stalled: &stalled}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if _, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "stall", Arguments: map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}}, nil)
			if !errors.Is(err, upstream.ErrTimeout) && !errors.Is(err, upstream.ErrUnavailable) {
				t.Errorf("a call to the stalled server: %v, want ErrTimeout or ErrUnavailable", err)
			}
		}()
	}
	wg.Wait()
	if n := stalled.Load(); n != 1 {
		t.Errorf("%d writes waited for their deadline, want 1: the later ones queued behind it", n)
	}
}

// TestAdversarialStallCloseDuringStalledWrite: Close returns while a call
// through the go-sdk is blocked writing to a server that stopped reading,
// with the default timeout (60s). Reproduction: the go-sdk closes a
// connection only once no call is in flight, and the call's write (which
// honours no context) held it until its deadline: Close took the
// upstream's whole timeout.
func TestAdversarialStallCloseDuringStalledWrite(t *testing.T) {
	t.Parallel()
	var stalled, writes atomic.Int32
	release := make(chan struct{})
	defer close(release)
	u, err := upstream.Start(context.Background(), upstream.Options{
		Name: "p", MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Pipe: func() (io.ReadWriteCloser, error) {
			c, s := net.Pipe()
			go serveUntilStall(s, release)
			return stallConn{Conn: c, stalled: &stalled, writes: &writes}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "stall", Arguments: map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	before := writes.Load()
	called := make(chan error, 1)
	go func() {
		_, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}}, nil)
		called <- err
	}()
	for writes.Load() == before { // the call's request is being written
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() {
		u.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close waits for a write the server does not take (the timeout is 60s)")
	}
	if err := <-called; !errors.Is(err, upstream.ErrUnavailable) {
		t.Errorf("the call cut off by Close: %v, want ErrUnavailable", err)
	}
}
