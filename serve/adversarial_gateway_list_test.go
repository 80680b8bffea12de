package serve

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/textcut"
)

// hostileList makes f's tools/list results pass through the function it
// holds (nil: as served), as a hostile upstream would rewrite them.
type hostileList struct {
	edit atomic.Pointer[func(*mcp.ListToolsResult)]
}

func (h *hostileList) install(f *fakeUpstream) {
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				if e := h.edit.Load(); e != nil {
					(*e)(lr)
				}
			}
			return res, err
		}
	})
}

const hostileListConfig = `tools:
  - name: local
    inputSchema: {type: object}
    handler: {static: {text: hi}}
upstreams:
  - name: files
    stdio: [fake-upstream]
    prefix: fs_
  - name: other
    stdio: [fake-upstream]
    timeout: 3s
`

// TestAdversarialGatewayHostileToolList: an upstream whose tools/list turns
// hostile while the gateway serves (duplicate names, a name taken by a
// config tool or by another upstream's prefixed tool, invalid or deeply
// nested or self-referencing input schemas, 50,000 tools; a list nested
// deeper than the client decodes is never answered, within the upstream's
// timeout) must neither end
// the process nor change what is served for the config's tools and the
// other upstream; and once the hostile upstream is fixed, its next change
// is published.
func TestAdversarialGatewayHostileToolList(t *testing.T) {
	t.Parallel()
	tool := func(name, schema string) *mcp.Tool {
		return &mcp.Tool{Name: name, Description: "Hostile.", InputSchema: json.RawMessage(schema)}
	}
	// 50,000 tools; 10,000 under -short and under the race detector, which
	// makes each list seconds of CPU (50,000 took 11.6 s alone and once
	// outlasted waitLong in a full go test -race ./serve).
	nTools := 50000
	if testing.Short() || raceDetector {
		nTools = 10000
	}
	many := func(lr *mcp.ListToolsResult) {
		for i := range nTools {
			lr.Tools = append(lr.Tools, tool("t"+strconv.Itoa(i), `{"type":"object"}`))
		}
	}
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{"type":"object"}` + strings.Repeat("}}", 5000)
	tests := []struct {
		name string
		edit func(*mcp.ListToolsResult)
	}{
		{"duplicate names", func(lr *mcp.ListToolsResult) { lr.Tools = append(lr.Tools, tool("ping", `{"type":"object"}`)) }},
		{"a config tool's name", func(lr *mcp.ListToolsResult) { lr.Tools = append(lr.Tools, tool("local", `{"type":"object"}`)) }},
		{"another upstream's exposed name", func(lr *mcp.ListToolsResult) {
			lr.Tools = append(lr.Tools, tool("fs_read_file", `{"type":"object"}`))
		}},
		{"input schema not an object", func(lr *mcp.ListToolsResult) { lr.Tools = append(lr.Tools, tool("bad", `"yes"`)) }},
		{"input schema of a wrong type", func(lr *mcp.ListToolsResult) { lr.Tools = append(lr.Tools, tool("bad", `{"type":5}`)) }},
		{"self-referencing input schema", func(lr *mcp.ListToolsResult) {
			lr.Tools = append(lr.Tools, tool("loop", `{"type":"object","$ref":"#","properties":{"a":{"$ref":"#"}}}`))
		}},
		{"5,000 levels of nesting", func(lr *mcp.ListToolsResult) { lr.Tools = append(lr.Tools, tool("deep", deep)) }},
		{"many tools", many},
	}
	for _, tc := range tests {
		// Not parallel: the 5,000-level and 50,000-tool lists take seconds
		// of CPU each under -race; side by side on a loaded 2-core machine
		// they outlasted waitLong (go test -race, 2026-12-01).
		t.Run(tc.name, func(t *testing.T) {
			files, other := newFakeUpstream(t), newFakeUpstream(t)
			other.remove("read_file", "search", "slow")
			other.set("ping", "Pings.", `{"type":"object"}`)
			var h hostileList
			h.install(other)
			r := newReloads()
			s, _ := startServer(t, hostileListConfig, useFakes(map[string]*fakeUpstream{"files": files, "other": other}), r.hook,
				func(o *testOptions) { o.UpstreamBackoff = 10 * time.Millisecond })
			cs := connectSDK(t, s, nil)
			h.edit.Store(&tc.edit)
			other.set("pong", "Pongs.", `{"type":"object"}`) // list_changed
			other.set("pong", "Pongs.", `{"type":"object"}`)
			files.set("write_file", "Writes.", `{"type":"object"}`)
			waitUntil(t, "files' safe change published", func() bool { return s.Live().Set.Lookup("fs_write_file") != nil })
			for _, name := range []string{"local", "fs_read_file", "ping"} {
				args := map[string]any{}
				if name == "fs_read_file" {
					args["path"] = "a"
				}
				if text, isErr := sdkCall(t, cs, name, args); isErr {
					t.Errorf("call %s: %s", name, text)
				}
			}
			if d := descriptionOf(s, "fs_read_file"); d != "Reads a file." {
				t.Errorf("fs_read_file served as %q", d)
			}
			// Fixed: the upstream's next change is gated again (its
			// hostile tool's removal is breaking: quarantined).
			h.edit.Store(nil)
			other.set("fixed", "Fixed.", `{"type":"object"}`)
			t.Cleanup(func() {
				if t.Failed() {
					r.mu.Lock()
					for _, res := range r.all {
						t.Logf("reload %s %s: %s %v", res.Trigger, res.Result, textcut.Cut(res.Reason, 300), res.Errors)
					}
					r.mu.Unlock()
				}
			})
			r.waitFor(t, "the fixed upstream's change gated", func(res ReloadResult) bool {
				return res.Trigger == "upstream:other" && (res.Result == ResultPublished && s.Live().Set.Lookup("fixed") != nil || res.Result == ResultQuarantined)
			})
		})
	}
}
