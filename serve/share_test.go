package serve

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
)

const shareConfig = `tools:
  - name: stable
    inputSchema: {type: object, properties: {q: {type: string}}}
    handler: {http: {url: "http://127.0.0.1:1/stable", timeout: 5s, headers: {Authorization: "Bearer ${TOKEN}"}}}
  - name: moving
    description: Revision 1.
    inputSchema: {type: object}
    handler: {static: {text: moving}}
`

// Generations share the built state of unchanged tools: the same
// *liveTool (compiled schemas, handler), refcounted, so a pinned old
// generation costs memory only for what changed.
func TestUnchangedToolsShared(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	env := map[string]string{"TOKEN": "t1", "PATH": "/usr/bin"}
	setEnv := func(k, v string) { mu.Lock(); env[k] = v; mu.Unlock() }
	getenv := func(k string) (string, bool) { mu.Lock(); defer mu.Unlock(); v, ok := env[k]; return v, ok }
	clk := clocktest.New(testNow)
	s, path := startServer(t, shareConfig, pinning, withClock(clk), func(o *testOptions) { o.Getenv = getenv })
	_ = connected(t, s) // pins generation 1, so it stays alive
	g1 := s.Live()

	publish(t, s, path, strings.Replace(shareConfig, "Revision 1.", "Revision 2.", 1))
	g2 := s.Live()
	if g1.tools["stable"] != g2.tools["stable"] {
		t.Error("an unchanged tool was rebuilt instead of shared")
	}
	if g1.tools["stable"].in != g2.tools["stable"].in {
		t.Error("an unchanged tool's compiled schema is not shared")
	}
	if g1.tools["moving"] == g2.tools["moving"] {
		t.Error("a changed tool was shared")
	}
	if n := g2.tools["stable"].refs.Load(); n != 2 {
		t.Errorf("shared tool held by %d generations, want 2 (pinned 1 and live 2)", n)
	}

	// The handler config changes (same served bytes): rebuilt.
	publish(t, s, path, strings.Replace(strings.Replace(shareConfig, "Revision 1.", "Revision 3.", 1), "timeout: 5s", "timeout: 6s", 1))
	g3 := s.Live()
	if g3.tools["stable"] == g2.tools["stable"] {
		t.Error("a tool whose handler config changed was shared")
	}
	if g3.tools["stable"].in != g2.tools["stable"].in {
		t.Error("the compiled schema of unchanged served bytes was not reused")
	}

	// The environment its handler read changes: rebuilt; unchanged: shared.
	setEnv("TOKEN", "t2")
	publish(t, s, path, strings.Replace(strings.Replace(shareConfig, "Revision 1.", "Revision 4.", 1), "timeout: 5s", "timeout: 6s", 1))
	g4 := s.Live()
	if g4.tools["stable"] == g3.tools["stable"] {
		t.Error("a tool whose handler's environment changed was shared")
	}
	setEnv("UNRELATED", "x")
	publish(t, s, path, strings.Replace(strings.Replace(shareConfig, "Revision 1.", "Revision 5.", 1), "timeout: 5s", "timeout: 6s", 1))
	g5 := s.Live()
	if g5.tools["stable"] != g4.tools["stable"] {
		t.Error("an unrelated environment change stopped sharing")
	}
	// Generations 2 and 3 were released (live no more, not pinned); the
	// tool they shared with the pinned generation 1 stays open for it.
	if n := g1.tools["stable"].refs.Load(); n != 1 {
		t.Errorf("generation 1's stable tool held by %d, want 1 (generation 1 only)", n)
	}
	if n := g5.tools["stable"].refs.Load(); n != 1 {
		t.Errorf("generation 5's stable tool held by %d, want 1", n)
	}
}

// A shared handler is closed only when the last generation using it is
// released, and a refused candidate gives its shared tools back.
func TestSharedHandlerClosedByLastGeneration(t *testing.T) {
	t.Parallel()
	rel := newReleases()
	clk := clocktest.New(testNow)
	s, path := startServer(t, shareConfig, withClock(clk), rel.hook, func(o *testOptions) {
		o.PinSessions = true
		o.Getenv = func(k string) (string, bool) { return map[string]string{"TOKEN": "t"}[k], k == "TOKEN" }
	})
	c := connected(t, s)
	g1 := s.Live()
	stable := g1.tools["stable"]
	publish(t, s, path, strings.Replace(shareConfig, "Revision 1.", "Revision 2.", 1))
	// A refused candidate (stable removed) must not keep a reference.
	refusedCfg := strings.Replace(shareConfig, "Revision 1.", "Revision 3.", 1)
	refusedCfg = refusedCfg[strings.Index(refusedCfg, "  - name: moving"):]
	writeFile(t, filepath.Dir(path), "mcpctl.serve.yaml", "tools:\n"+refusedCfg)
	if res := s.Reload(context.Background(), "test"); res.Result != ResultRefused {
		t.Fatalf("reload = %s, want refused", res.Result)
	}
	if n := stable.refs.Load(); n != 2 {
		t.Fatalf("stable held by %d after a refused candidate, want 2", n)
	}
	clk.Fire(t, 0) // generation 1's pin ends: released, stable stays
	rel.waitFor(t, 1)
	if n := stable.refs.Load(); n != 1 {
		t.Errorf("stable held by %d after generation 1 was released, want 1", n)
	}
	if got := c.countListChanged(s); got != 1 {
		t.Errorf("got %d list_changed at expiry, want 1", got)
	}
	s.Close() // releases generation 2, the last holder
	rel.waitFor(t, 2)
	if n := stable.refs.Load(); n != 0 {
		t.Errorf("stable held by %d after every generation was released, want 0", n)
	}
}
