package serve

import (
	"context"
	"fmt"
	"github.com/mcpctl/mcpctl/internal/configtest"
	"github.com/mcpctl/mcpctl/serveconfig"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Scenario tests: a real config file on disk, the real fsnotify watcher,
// one behaviour each. Waits are event-driven (reload results, the notifier
// settling, a ping barrier), bounded by waitLong; nothing asserts a time.

const baseConfig = configtest.Base

// watched starts a server on config with the watcher running; the watcher
// stops at cleanup.
func watched(t *testing.T, config string, tweak ...func(*testOptions)) (*Server, string, *reloads) {
	t.Helper()
	r := newReloads()
	ready := make(chan struct{})
	s, path := startServer(t, config, append([]func(*testOptions){r.hook, watchReady(ready)}, tweak...)...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.Watch(ctx); err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case <-ready:
	case <-time.After(waitLong):
		t.Fatal("watcher never started")
	}
	return s, path, r
}

// connected returns an initialized raw client.
func connected(t *testing.T, s *Server) *rawClient {
	c := dialRaw(t, s)
	c.initialize(true)
	// notifications/initialized has no answer: wait until the server has
	// taken it, so a publish right after is notified at once rather than
	// remembered for later (which a count could miss).
	deadline := time.Now().Add(waitLong)
	for !s.initializedForTest(c.ss) {
		if time.Now().After(deadline) {
			t.Fatal("the server never took notifications/initialized")
		}
		time.Sleep(time.Millisecond)
	}
	return c
}

func TestScenarioSameContentNoNotification(t *testing.T) {
	t.Parallel()
	s, path, r := watched(t, baseConfig)
	c := connected(t, s)
	before := c.list()
	writeFile(t, filepath.Dir(path), filepath.Base(path), baseConfig)
	r.waitFor(t, "after a same-content rewrite", func(res ReloadResult) bool { return res.Trigger == "watch" })
	if n := c.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed after rewriting the same content, want 0", n)
	}
	if after := c.list(); after.Meta.Gen != before.Meta.Gen {
		t.Errorf("generation changed from %+v to %+v", before.Meta.Gen, after.Meta.Gen)
	}
}

func TestScenarioReorderedKeysNoNotification(t *testing.T) {
	t.Parallel()
	s, path, r := watched(t, baseConfig)
	c := connected(t, s)
	before := c.list()
	reordered := strings.Replace(baseConfig, `      properties:
        query: {type: string}
        limit: {type: integer, minimum: 1, maximum: 100}
      required: [query]`, `      required: [query]
      properties:
        limit: {maximum: 100, minimum: 1, type: integer}
        query: {type: string}`, 1)
	if reordered == baseConfig {
		t.Fatal("test config did not change")
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), reordered)
	res := r.waitFor(t, "after reordering keys", func(res ReloadResult) bool { return res.Trigger == "watch" })
	if res.Result != ResultPublished || res.Changed {
		t.Fatalf("reload = %s changed=%v, want published with no canonical change", res.Result, res.Changed)
	}
	if n := c.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed after reordering keys, want 0", n)
	}
	after := c.list()
	if after.Meta.Gen.Fingerprint != before.Meta.Gen.Fingerprint || after.Meta.Gen.Version != before.Meta.Gen.Version+1 {
		t.Errorf("generation %+v -> %+v: want the same fingerprint, the next version", before.Meta.Gen, after.Meta.Gen)
	}
	// The served bytes follow the new source order.
	if !strings.Contains(string(after.Tools[1]), `"required":["query"],"properties":{"limit":{"maximum":100`) {
		t.Errorf("served bytes do not follow the new key order: %s", after.Tools[1])
	}
}

func TestScenarioBurstCoalesced(t *testing.T) {
	t.Parallel()
	// 10 writes 20 ms apart inside one debounce window. The window is
	// widened from the default so that a loaded machine (-race, 2 cores)
	// cannot stretch a gap past it; the behaviour under test is coalescing.
	s, path, r := watched(t, baseConfig, func(o *testOptions) { o.Debounce = 300 * time.Millisecond })
	c := connected(t, s)
	var last string
	var maxGap time.Duration
	prev := time.Now()
	for i := 1; i <= 10; i++ {
		last = strings.Replace(baseConfig, "Keyword search.", fmt.Sprintf("Keyword search, revision %d.", i), 1)
		writeFile(t, filepath.Dir(path), filepath.Base(path), last)
		now := time.Now()
		maxGap = max(maxGap, now.Sub(prev))
		prev = now
		time.Sleep(20 * time.Millisecond)
	}
	want, err := serveconfig.ParseConfig(path, []byte(last), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSet, _ := want.Set()
	r.waitFor(t, "publishing the last write", func(res ReloadResult) bool {
		return res.Result == ResultPublished && res.Fingerprint == wantSet.Fingerprint()
	})
	n := c.countListChanged(s)
	switch {
	case n < 1:
		t.Errorf("got no list_changed for a burst of 10 writes")
	case n > 2 && maxGap < s.opts.Debounce:
		t.Errorf("got %d list_changed for a burst of 10 writes inside the debounce window, want 1 or 2", n)
	case n > 2:
		t.Logf("the machine stretched a gap between writes to %v (over the debounce): %d notifications", maxGap, n)
	}
	l := c.list()
	if l.Meta.Gen.Fingerprint != wantSet.Fingerprint() || !strings.Contains(string(l.Tools[1]), "revision 10.") {
		t.Errorf("the last write did not win: %s", l.Tools[1])
	}
}

const removedConfig = `server: {name: docs, version: 1.4.0}
tools:
  - name: search_documents
    description: Keyword search.
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer, minimum: 1, maximum: 100}
      required: [query]
    handler: {static: {text: found}}
`

func TestScenarioBreakingRemovalRefused(t *testing.T) {
	t.Parallel()
	s, path, r := watched(t, baseConfig)
	c := connected(t, s)
	before := c.list()
	writeFile(t, filepath.Dir(path), filepath.Base(path), removedConfig)
	res := r.waitFor(t, "after removing a tool", func(res ReloadResult) bool { return res.Trigger == "watch" })
	if res.Result != ResultRefused {
		t.Fatalf("reload = %s, want refused", res.Result)
	}
	found := false
	for _, f := range res.Findings {
		if f.Rule == "tool-removed" && f.Tool == "fetch_document" && f.NeedsPermission && f.AllowedBy == "" {
			found = true
		}
	}
	if !found {
		t.Errorf("refusal lacks the tool-removed finding for fetch_document: %+v", res.Findings)
	}
	if res.Err() == nil || !strings.Contains(res.Err().Error(), "fetch_document") {
		t.Errorf("refusal error does not explain itself: %v", res.Err())
	}
	if n := c.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed for a refused candidate, want 0", n)
	}
	after := c.list()
	if after.Meta.Gen != before.Meta.Gen || len(after.Tools) != 2 {
		t.Errorf("list changed after a refusal: %+v %v", after.Meta.Gen, after.names())
	}
	st := s.Status()
	if len(st.Refused) != 1 || st.LastReload == nil || st.LastReload.Result != ResultRefused {
		t.Errorf("status does not keep the refusal: %+v", st)
	}
}

func TestScenarioBreakingRemovalAllowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, allow string
		want        string
	}{
		{"rule and tool", "{rule: tool-removed, tool: fetch_document, until: 2026-12-31, reason: retired}", ResultPublished},
		{"tool only covers every rule", "{tool: fetch_document, reason: retired}", ResultPublished},
		{"other tool", "{tool: search_documents, reason: unrelated}", ResultRefused},
		{"expired", "{rule: tool-removed, tool: fetch_document, until: 2026-01-01, reason: too late}", ResultRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path, r := watched(t, baseConfig)
			c := connected(t, s)
			writeFile(t, filepath.Dir(path), filepath.Base(path), removedConfig+"gate:\n  allow:\n    - "+tc.allow+"\n")
			res := r.waitFor(t, "after removing a tool", func(res ReloadResult) bool { return res.Trigger == "watch" })
			if res.Result != tc.want {
				t.Fatalf("reload = %s (%s %v), want %s", res.Result, res.Reason, res.Findings, tc.want)
			}
			n := c.countListChanged(s)
			l := c.list()
			if tc.want == ResultPublished {
				if n != 1 || len(l.Tools) != 1 {
					t.Errorf("published removal: %d notifications, tools %v; want 1 and [search_documents]", n, l.names())
				}
				return
			}
			if n != 0 || len(l.Tools) != 2 {
				t.Errorf("refused removal: %d notifications, tools %v; want 0 and both tools", n, l.names())
			}
			if strings.Contains(tc.allow, "2026-01-01") && !strings.Contains(res.Err().Error(), "expired") {
				t.Errorf("refusal does not say the entry expired: %v", res.Err())
			}
		})
	}
}

func TestScenarioInvalidCandidatesRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config, want string
	}{
		{"invalid YAML", "server: {name: docs\ntools: [\n", "invalid YAML"},
		{"duplicate name", strings.Replace(baseConfig, "name: fetch_document", "name: search_documents", 1), "duplicate name"},
		{"case-insensitive duplicate", strings.Replace(baseConfig, "name: fetch_document", "name: Search_Documents", 1), "differs only in case"},
		{"alias collides with a tool", strings.Replace(baseConfig, "    handler: {static: {text: fetched}}", "    handler: {static: {text: fetched}}\n    facade: {aliases: [SEARCH_DOCUMENTS]}", 1), "differs only in case"},
		{"uncompilable schema", strings.Replace(baseConfig, "limit: {type: integer, minimum: 1, maximum: 100}", "limit: {type: integer, minimum: one}", 1), "/inputSchema/properties/limit/minimum"},
		{"unresolvable $ref", strings.Replace(baseConfig, "query: {type: string}", "query: {$ref: '#/$defs/missing'}", 1), "ref"},
		{"missing handler", strings.Replace(baseConfig, "    handler: {static: {text: fetched}}\n", "", 1), "no handler"},
		{"missing command", strings.Replace(baseConfig, "handler: {static: {text: fetched}}", "handler: {exec: {command: [./no-such-program]}}", 1), "no-such-program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path, r := watched(t, baseConfig)
			c := connected(t, s)
			before := c.list()
			writeFile(t, filepath.Dir(path), filepath.Base(path), tc.config)
			res := r.waitFor(t, "after writing an invalid config", func(res ReloadResult) bool { return res.Trigger == "watch" })
			if res.Result != ResultRefused {
				t.Fatalf("reload = %s, want refused", res.Result)
			}
			msg := strings.Join(res.Errors, "\n")
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, path) {
				t.Errorf("errors %q do not say %q at %s", msg, tc.want, path)
			}
			if c.countListChanged(s) != 0 {
				t.Error("a refused candidate notified")
			}
			if after := c.list(); after.Meta.Gen != before.Meta.Gen {
				t.Errorf("the live generation changed: %+v -> %+v", before.Meta.Gen, after.Meta.Gen)
			}
			call := c.call("tools/call", map[string]any{"name": "fetch_document", "arguments": map[string]any{"id": "1"}})
			if call.Error != nil || !strings.Contains(string(call.Result), "fetched") {
				t.Errorf("still serving? call: %s %+v", call.Result, call.Error)
			}
		})
	}
}

func TestScenarioListWithoutInitialized(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	c := dialRaw(t, s)
	c.initialize(false)
	l := c.list()
	if got := l.names(); len(got) != 2 || got[0] != "fetch_document" || got[1] != "search_documents" {
		t.Errorf("tools/list before notifications/initialized = %v, want the full list", got)
	}
}

// rewrite strategies an editor or a deployment uses to change a file.
var rewrites = map[string]func(t *testing.T, path, content string){
	"in place": func(t *testing.T, path, content string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
		f.Close()
	},
	"temp and rename": func(t *testing.T, path, content string) {
		tmp := path + ".swp~"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	},
	"delete and re-create": func(t *testing.T, path, content string) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	},
}

func TestScenarioRewriteStrategies(t *testing.T) {
	t.Parallel()
	for name, rewrite := range rewrites {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, path, r := watched(t, baseConfig)
			c := connected(t, s)
			added := baseConfig + "  - name: list_documents\n    inputSchema: {type: object}\n    handler: {static: {text: listed}}\n"
			rewrite(t, path, added)
			r.waitFor(t, "publishing the change", func(res ReloadResult) bool {
				return res.Trigger == "watch" && res.Result == ResultPublished && res.Changed
			})
			if n := c.countListChanged(s); n != 1 {
				t.Errorf("got %d list_changed, want 1", n)
			}
			if got := c.list().names(); len(got) != 3 {
				t.Errorf("tools = %v, want 3", got)
			}
		})
	}
}

func TestScenarioIncludeChange(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(baseConfig, `    inputSchema:
      type: object
      properties:
        id: {type: string}
      required: [id]`, `    inputSchema: {$file: schemas/fetch.json}`, 1)
	dir := t.TempDir()
	writeFile(t, dir, "schemas/fetch.json", `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	r := newReloads()
	path := writeFile(t, dir, "mcpctl.serve.yaml", cfg)
	ready := make(chan struct{})
	o := testOptions{Options: Options{ConfigPath: path}}
	r.hook(&o)
	watchReady(ready)(&o)
	s, err := newTestServer(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Watch(ctx) }()
	defer func() { cancel(); recvWithin(t, "the watcher to return", done) }()
	recvWithin(t, "the watcher", ready)
	c := connected(t, s)
	// Widening the included schema (a new optional property) is additive.
	writeFile(t, dir, "schemas/fetch.json", `{"type":"object","properties":{"id":{"type":"string"},"rev":{"type":"integer"}},"required":["id"]}`)
	res := r.waitFor(t, "after changing the include", func(res ReloadResult) bool { return res.Trigger == "watch" })
	if res.Result != ResultPublished || !res.Changed {
		t.Fatalf("reload = %s changed=%v (%v %v)", res.Result, res.Changed, res.Errors, res.Findings)
	}
	if n := c.countListChanged(s); n != 1 {
		t.Errorf("got %d list_changed, want 1", n)
	}
	if l := c.list(); !strings.Contains(string(l.Tools[0]), `"rev":{"type":"integer"}`) {
		t.Errorf("include not served: %s", l.Tools[0])
	}
}

func TestScenarioConfigMapSymlinkSwap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The layout the kubelet makes for a mounted ConfigMap.
	writeFile(t, dir, "..2026_01_15_12_00_00.1/mcpctl.serve.yaml", baseConfig)
	mustSymlink(t, "..2026_01_15_12_00_00.1", filepath.Join(dir, "..data"))
	mustSymlink(t, "..data/mcpctl.serve.yaml", filepath.Join(dir, "mcpctl.serve.yaml"))
	r := newReloads()
	ready := make(chan struct{})
	o := testOptions{Options: Options{ConfigPath: filepath.Join(dir, "mcpctl.serve.yaml")}}
	r.hook(&o)
	watchReady(ready)(&o)
	s, err := newTestServer(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Watch(ctx) }()
	defer func() { cancel(); recvWithin(t, "the watcher to return", done) }()
	recvWithin(t, "the watcher", ready)
	c := connected(t, s)

	// The update: a new timestamped folder, a ..data_tmp link renamed over
	// ..data (atomic), the old folder removed.
	added := baseConfig + "  - name: list_documents\n    inputSchema: {type: object}\n    handler: {static: {text: listed}}\n"
	writeFile(t, dir, "..2026_01_15_12_05_00.2/mcpctl.serve.yaml", added)
	mustSymlink(t, "..2026_01_15_12_05_00.2", filepath.Join(dir, "..data_tmp"))
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "..2026_01_15_12_00_00.1")); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "after the ConfigMap swap", func(res ReloadResult) bool {
		return res.Trigger == "watch" && res.Result == ResultPublished && res.Changed
	})
	if n := c.countListChanged(s); n != 1 {
		t.Errorf("got %d list_changed, want 1", n)
	}
	if got := c.list().names(); len(got) != 3 {
		t.Errorf("tools = %v, want 3", got)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestStaleCandidateDiscarded(t *testing.T) {
	t.Parallel()
	// Build 2 (config B) is made artificially slow: it waits before taking
	// the publisher lock until build 3 (config C, written later) has been
	// published. Build 2 must then be discarded, never overwriting C.
	release := make(chan struct{})
	var once sync.Once
	s, path := startServer(t, baseConfig, func(o *testOptions) {
		o.beforePublish = func(seq uint64) {
			if seq == 2 {
				<-release
			}
		}
	})
	b := baseConfig + "  - name: b_tool\n    inputSchema: {type: object}\n    handler: {static: {text: b}}\n"
	cc := baseConfig + "  - name: c_tool\n    inputSchema: {type: object}\n    handler: {static: {text: c}}\n"
	writeFile(t, filepath.Dir(path), filepath.Base(path), b)
	slow := make(chan ReloadResult)
	go func() { slow <- s.Reload(context.Background(), "slow") }()
	// Wait until build 2 has read its config (it is then blocked).
	waitUntil(t, "build 2 to read its config", func() bool { return s.seq.Load() >= 2 })
	writeFile(t, filepath.Dir(path), filepath.Base(path), cc)
	// Reloads are serialized: the newer one queues behind the slow one
	// (which marks it stale) and builds once it is done.
	fastDone := make(chan ReloadResult)
	go func() { fastDone <- s.Reload(context.Background(), "fast") }()
	waitUntil(t, "build 3 to start", func() bool { return s.seq.Load() >= 3 })
	once.Do(func() { close(release) })
	fast := recvWithin(t, "the newer reload", fastDone)
	old := recvWithin(t, "the slow reload", slow)
	if fast.Result != ResultPublished {
		t.Fatalf("newer build = %s, want published", fast.Result)
	}
	if old.Result != ResultSuperseded {
		t.Fatalf("older build = %s, want superseded", old.Result)
	}
	if names := s.Live().Tools(); !contains(names, "c_tool") || contains(names, "b_tool") {
		t.Errorf("live tools %v: the older build overwrote the newer", names)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
