package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/toolset"
)

// memClient is a minimal JSON-RPC client over the in-memory transport that
// returns errors instead of failing the test (it runs in goroutines) and
// keeps results as the server's exact bytes.
type memClient struct {
	conn mcp.Connection
	id   int64
}

func dialMem(ctx context.Context, s *Server) (*memClient, func(), error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	c := &memClient{conn: conn}
	cleanup := func() { conn.Close(); ss.Close(); _ = ss.Wait() }
	if _, err := c.call(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}`); err != nil {
		cleanup()
		return nil, nil, err
	}
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		cleanup()
		return nil, nil, err
	}
	return c, cleanup, nil
}

// call sends one request and returns its result bytes; notifications that
// arrive meanwhile are skipped.
func (c *memClient) call(ctx context.Context, method, params string) (json.RawMessage, error) {
	c.id++
	id, _ := jsonrpc.MakeID(float64(c.id))
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)}); err != nil {
		return nil, err
	}
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			continue
		}
		if resp.ID != id {
			return nil, fmt.Errorf("response to %v, want %v", resp.ID, id)
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	}
}

// TestSoak publishes many generations while 8 clients list and call
// continuously: every tools/list response must be exactly one published
// generation (its content's fingerprint equal to the one it claims and to
// the published generation of that version), versions never go backwards
// for a client, and no call fails.
func TestSoak(t *testing.T) {
	t.Parallel()
	publishes, clients := 1000, 8
	if testing.Short() {
		publishes = 100
	}
	s, path := startServer(t, soakConfig(0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type seen struct {
		version     uint64
		fingerprint string
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		observed = make([][]seen, clients)
		errs     []error
		lists    = make([]int, clients)
		calls    = make([]int, clients)
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for i := 0; i < clients; i++ {
		c, cleanup, err := dialMem(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		defer cleanup()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				res, err := c.call(ctx, "tools/list", `{}`)
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("client %d: tools/list: %w", i, err))
					}
					return
				}
				var l listed
				if err := json.Unmarshal(res, &l); err != nil {
					fail(err)
					return
				}
				set, err := toolset.Decode("list", res)
				if err != nil {
					fail(fmt.Errorf("client %d: undecodable list: %w", i, err))
					return
				}
				if fp := set.Fingerprint(); fp != l.Meta.Gen.Fingerprint {
					fail(fmt.Errorf("client %d: torn list: content %s, claims generation %d %s", i, fp, l.Meta.Gen.Version, l.Meta.Gen.Fingerprint))
				}
				observed[i] = append(observed[i], seen{l.Meta.Gen.Version, l.Meta.Gen.Fingerprint})
				lists[i]++
				res, err = c.call(ctx, "tools/call", `{"name":"search_documents","arguments":{"query":"soak"}}`)
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("client %d: tools/call: %w", i, err))
					}
					return
				}
				var r mcp.CallToolResult
				if err := json.Unmarshal(res, &r); err != nil || r.IsError || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != `{"query":"soak"}` {
					fail(fmt.Errorf("client %d: failed call: %s", i, res))
				}
				calls[i]++
			}
		}()
	}

	published := map[uint64]string{1: s.Live().Fingerprint}
	for n := 1; n <= publishes; n++ {
		writeFile(t, filepath.Dir(path), filepath.Base(path), soakConfig(n))
		res := s.Reload(ctx, "soak")
		if res.Result != ResultPublished {
			t.Fatalf("publish %d: %s %v %v", n, res.Result, res.Errors, res.Findings)
		}
		published[res.Version] = res.Fingerprint
	}
	cancel()
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	total := 0
	for i, obs := range observed {
		var last uint64
		for _, o := range obs {
			if published[o.version] != o.fingerprint {
				t.Errorf("client %d listed generation %d %s, which was never published as such", i, o.version, o.fingerprint)
			}
			if o.version < last {
				t.Errorf("client %d saw generation %d after %d", i, o.version, last)
			}
			last = o.version
		}
		total += lists[i]
		if lists[i] == 0 || calls[i] == 0 {
			t.Errorf("client %d made %d lists and %d calls", i, lists[i], calls[i])
		}
	}
	t.Logf("%d publishes; %d lists and %d+ calls by %d clients", publishes, total, total-clients, clients)
}

// soakConfig is generation n: always search_documents (an exec handler
// echoing its arguments), a description naming n, and every third
// generation an extra optional property (added then removed again, allowed
// through the gate).
func soakConfig(n int) string {
	extra := ""
	if n%3 == 1 {
		extra = "\n        page: {type: integer, minimum: 1}"
	}
	return fmt.Sprintf(`server: {name: soak, version: 1.0.0}
tools:
  - name: search_documents
    description: Search, generation %d.
    inputSchema:
      type: object
      properties:
        query: {type: string}%s
      required: [query]
    handler:
      exec: {command: [/bin/cat]}
  - name: tool_%d
    inputSchema: {type: object}
    handler: {static: {text: "%d"}}
gate:
  allow:
    - {tool: search_documents, reason: soak test churn}
    - {rule: tool-removed, reason: soak test churn}
`, n, extra, n%5, n)
}
