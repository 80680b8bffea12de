package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/internal/configtest"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// hugeNumbers are the reproductions: valid JSON numbers that
// jsonschema v6 cannot compare (its (*big.Rat).Cmp(nil) panic).
var hugeNumbers = []string{"1e1000000000", "-1e1000000000", "1e-1000000000", "1E+999999999999"}

// rawCall sends one exact JSON-RPC line (id must be unique on c) and
// returns the response with that id.
func rawCall(t *testing.T, c *rawClient, id int, line string) wireMsg {
	t.Helper()
	c.send(line)
	for {
		l := c.recv()
		var m wireMsg
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("bad message %s: %v", l, err)
		}
		if string(m.ID) == fmt.Sprint(id) && m.Method == "" {
			return m
		}
		c.notes = append(c.notes, l)
	}
}

// TestHardening01HugeNumberKeepsServing: the exact request of the issue
// against tools with minimum, maximum, exclusiveMaximum and multipleOf,
// and a handler echoing the number into an outputSchema with minimum,
// killed the process; each is now an isError result locating the number,
// and the server goes on serving.
func TestHardening01HugeNumberKeepsServing(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, `tools:
  - name: num
    inputSchema: {type: object, properties: {a: {type: number, minimum: 0}}}
    handler: {static: {text: ok}}
  - name: max
    inputSchema: {type: object, properties: {a: {maximum: 10}}}
    handler: {static: {text: ok}}
  - name: xmax
    inputSchema: {type: object, properties: {a: {exclusiveMaximum: 10}}}
    handler: {static: {text: ok}}
  - name: mult
    inputSchema: {type: object, properties: {a: {multipleOf: 3}}}
    handler: {static: {text: ok}}
  - name: echo
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {a: {minimum: 0}}}
    handler: {exec: {command: [/bin/cat]}}
`)
	c := connected(t, s)
	id := 100
	for _, tool := range []string{"num", "max", "xmax", "mult", "echo"} {
		for _, n := range hugeNumbers {
			id++
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"a":%s}}}`, id, tool, n)
			r := rawCall(t, c, id, line)
			var res callResult
			if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || !res.IsError || len(res.Content) == 0 {
				t.Fatalf("%s with %s: got %+v %s, want an isError result", tool, n, r.Error, r.Result)
			}
			if want := "/a: number " + n + " is out of range"; !strings.Contains(res.Content[0].Text, want) {
				t.Errorf("%s with %s: %q does not say %q", tool, n, res.Content[0].Text, want)
			}
		}
	}
	if got := c.list().names(); len(got) != 5 {
		t.Errorf("after the calls tools/list has %v", got)
	}
}

// TestHardening01PanicRecovered: a panic while answering a tools/call
// (injected) is an isError result and the session goes on; a panic while
// building a candidate (injected) refuses that candidate and the live
// generation stays. Both are counted in mcpctl_serve_panics_total.
func TestHardening01PanicRecovered(t *testing.T) {
	t.Parallel()
	var inject atomic.Value
	inject.Store("")
	s, path := startServer(t, baseConfig, func(o *testOptions) {
		o.beforePublish = func(uint64) {
			if inject.Load() == panicReload {
				panic("injected reload panic")
			}
		}
		o.beforeCall = func(string) {
			if inject.Load() == panicCall {
				panic("injected call panic")
			}
		}
	})
	c := connected(t, s)
	inject.Store(panicCall)
	res, errMsg := callTool(t, c, "search_documents", map[string]any{"query": "x"})
	if errMsg != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "internal error in the server") {
		t.Errorf("a panicking call: got %+v %v, want an isError result", res, errMsg)
	}
	inject.Store(panicReload)
	writeFile(t, filepath.Dir(path), filepath.Base(path), strings.Replace(baseConfig, "Keyword", "Full-text", 1))
	if rr := s.Reload(t.Context(), "test"); rr.Result != ResultRefused || rr.Version != 1 {
		t.Errorf("a panicking reload: %s with v%d live, want refused with v1 live", rr.Result, rr.Version)
	}
	inject.Store("")
	if got := c.list().Meta.Gen.Version; got != 1 {
		t.Errorf("live version %d after the refused reload, want 1", got)
	}
	if res, _ := callTool(t, c, "search_documents", map[string]any{"query": "x"}); res.IsError {
		t.Errorf("the next call failed: %+v", res)
	}
	m := metricsText(t, s)
	for _, where := range []string{panicCall, panicReload} {
		if want := fmt.Sprintf("\nmcpctl_serve_panics_total{where=%q} 1\n", where); !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestHardening08IncludeConfined: $file: ../../etc/passwd, an absolute
// path and a symlink out of the config's folder were published in
// tools/list; each is now a located error, while a symlink inside the
// folder tree still works.
func TestHardening08IncludeConfined(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	dir := filepath.Join(top, "cfg")
	writeFile(t, top, "outside.json", `{"type":"object","description":"a file outside"}`)
	writeFile(t, dir, "schemas/in.json", `{"type":"object"}`)
	if err := os.Symlink(filepath.Join(top, "outside.json"), filepath.Join(dir, "link-out.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("schemas/in.json", filepath.Join(dir, "link-in.json")); err != nil {
		t.Fatal(err)
	}
	config := func(file string) string {
		return "tools:\n  - name: a\n    inputSchema:\n      $file: " + file + "\n    handler: {static: {text: ok}}\n"
	}
	for _, file := range []string{"../outside.json", "../../../../../../etc/passwd", filepath.Join(top, "outside.json"), "link-out.json"} {
		path := writeFile(t, dir, "mcpctl.serve.yaml", config(file))
		_, err := serveconfig.LoadConfig(path)
		var ie *toolset.InputError
		if !errors.As(err, &ie) || ie.Line != 4 || ie.Pointer != "/tools/0/inputSchema" || !strings.Contains(ie.Msg, "outside the folder") {
			t.Errorf("$file %s: got %v, want a located error at line 4, /tools/0/inputSchema, saying it is outside the folder", file, err)
		}
	}
	for _, file := range []string{"schemas/in.json", "link-in.json", "./schemas/../schemas/in.json"} {
		path := writeFile(t, dir, "mcpctl.serve.yaml", config(file))
		if _, err := serveconfig.LoadConfig(path); err != nil {
			t.Errorf("$file %s: %v", file, err)
		}
	}
}

var aliasBomb = configtest.AliasBomb

// TestHardening02AliasBomb: seven levels of &a [*b,*b,…] in the config, in
// a $file include, or through aliases of a $file include ran the server
// out of memory on reload; each is now a located error, the live
// generation stays, and a config sharing a schema through an anchor still
// loads.
func TestHardening02AliasBomb(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig)
	dir := filepath.Dir(path)
	writeFile(t, dir, "bomb.yaml", "type: object\n"+aliasBomb("", "x"))
	writeFile(t, dir, "leaf.json", `{"type":"string","description":"a leaf"}`)
	tool := func(extra string) string {
		return baseConfig + "  - name: bomb\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n" + extra
	}
	for _, tc := range []struct{ name, config, file string }{
		{"in the config", tool("    _meta:\n" + aliasBomb("      ", "x")), path},
		{"in a $file", tool("    outputSchema: {$file: bomb.yaml}\n"), filepath.Join(dir, "bomb.yaml")},
		{"aliases of a $file", tool("    _meta:\n" + aliasBomb("      ", "{$file: leaf.json}")), path},
	} {
		writeFile(t, dir, filepath.Base(path), tc.config)
		rr := s.Reload(t.Context(), "test")
		errs := strings.Join(rr.Errors, "\n")
		if rr.Result != ResultRefused || !strings.Contains(errs, "an alias bomb?") || !strings.Contains(errs, tc.file+":") {
			t.Errorf("%s: %s %q, want refused as an alias bomb located in %s", tc.name, rr.Result, errs, tc.file)
		}
	}
	shared := strings.Replace(baseConfig, "        query: {type: string}\n", "        query: &str {type: string}\n        other: *str\n", 1)
	writeFile(t, dir, filepath.Base(path), shared)
	if rr := s.Reload(t.Context(), "test"); rr.Result != ResultPublished {
		t.Errorf("a shared schema through an anchor: %s %v %s", rr.Result, rr.Errors, rr.Reason)
	}
}

// TestHardening10StaleCandidate: a big config is written, and while its
// candidate is being built (the build step held by a test hook) the
// original config is written back. The stale big candidate used to be
// published, and the newest config then refused (every tool removed): the
// server served a config that no longer existed on disk. Now the stale
// candidate is discarded and the newest inputs are considered, with the
// real watcher and real files.
func TestHardening10StaleCandidate(t *testing.T) {
	t.Parallel()
	var cfgPath atomic.Value
	cfgPath.Store("")
	var once sync.Once
	held := make(chan struct{})
	s, path, r := watched(t, baseConfig, func(o *testOptions) {
		o.beforePublish = func(uint64) {
			// The big config's build: write the original back while it
			// is "being built".
			p := cfgPath.Load().(string)
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "tool_00000") {
				once.Do(func() {
					writeFile(t, filepath.Dir(p), filepath.Base(p), baseConfig)
					close(held)
				})
			}
		}
	})
	cfgPath.Store(path)
	big := baseConfig + strings.TrimPrefix(manyToolsConfig(50), "server: {name: big, version: 1.0.0}\ntools:\n")
	writeFile(t, filepath.Dir(path), filepath.Base(path), big)
	select {
	case <-held:
	case <-time.After(waitLong):
		t.Fatal("the big config was never built")
	}
	// The watcher saw the second write too: wait until a reload settles on
	// the config on disk.
	r.waitFor(t, "considering the newest config", func(res ReloadResult) bool {
		return res.Result == ResultUnchanged || res.Result == ResultRefused
	})
	if g := s.Live(); g.Version != 1 || len(g.Set.Tools) != 2 {
		t.Errorf("live generation v%d with %d tools, want v1 with the 2 tools on disk", g.Version, len(g.Set.Tools))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range r.all {
		if res.Trigger != "startup" && (res.Result == ResultPublished || res.Result == ResultRefused) {
			t.Errorf("reload %s (%s, %d findings): the stale candidate was considered", res.Result, res.Trigger, len(res.Findings))
		}
	}
}

// TestHardening13FolderReplaced: moving the config folder away and
// creating a new one at its path silently stopped hot reload (the watch
// followed the old folder). The watch is set again on the new folder, it
// is logged, and the new config is published.
func TestHardening13FolderReplaced(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	s, path, r := watched(t, baseConfig, func(o *testOptions) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	dir := filepath.Dir(path)
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir + ".old") })
	writeFile(t, dir, filepath.Base(path), strings.Replace(baseConfig, "Keyword", "Full-text", 1))
	res := r.waitFor(t, "of the new folder's config", func(res ReloadResult) bool { return res.Result == ResultPublished && res.Trigger == "watch" })
	if !strings.Contains(logs.String(), "the config folder was replaced; watching the new one") {
		t.Errorf("the new watch was not logged:\n%s", logs.String())
	}
	// And the new folder stays watched.
	writeFile(t, dir, filepath.Base(path), strings.Replace(baseConfig, "Keyword", "Phrase", 1))
	r.waitFor(t, "of the next change", func(next ReloadResult) bool { return next.Result == ResultPublished && next.Version > res.Version })
	if got := string(s.Live().ToolsJSON()); !strings.Contains(got, "Phrase search.") {
		t.Errorf("live tools %s", got)
	}
}

// TestHardening04RetroactiveSunset is the gate bypass: three
// reloads, each safe on its own — deprecate echo with a sunset already
// past, remove it ("after its sunset"), re-add it with message: integer —
// broke the old call {"message":"hello"} without permission ever being
// asked. Now each step needs permission: the first two because callers
// got no notice (gate.minNotice), the third because the re-added tool is
// diffed against its last published definition. A deprecation announced
// with enough notice is still removed safely after its sunset.
func TestHardening04RetroactiveSunset(t *testing.T) {
	t.Parallel()
	const keep = "  - name: keep\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n"
	echo := func(extra string) string {
		return "  - name: echo\n    inputSchema: {type: object, properties: {message: {type: string}}}\n    handler: {static: {text: ok}}\n" + extra
	}
	clock := clocktest.New(testNow)
	s, path := startServer(t, "tools:\n"+keep+echo(""), withClock(clock))
	reload := func(config string) ReloadResult {
		t.Helper()
		writeFile(t, filepath.Dir(path), filepath.Base(path), config)
		return s.Reload(t.Context(), "test")
	}
	blocking := func(rr ReloadResult) []string {
		var out []string
		for _, f := range rr.Findings {
			if f.NeedsPermission && f.AllowedBy == "" {
				out = append(out, f.Rule+" "+f.Tool)
			}
		}
		return out
	}
	allow := func(rules ...string) string {
		g := "gate:\n  allow:\n"
		for _, r := range rules {
			g += "    - {rule: " + r + ", tool: echo, reason: test}\n"
		}
		return g
	}
	retro := "    deprecated: {since: 2026-12-01, sunset: 2020-01-01}\n"
	steps := []struct {
		name, config string
		want         []string // blocking findings; nil: published
	}{
		{"deprecate with a past sunset", "tools:\n" + keep + echo(retro), []string{"tool-deprecated echo"}},
		{"the same, allowed", allow("tool-deprecated") + "tools:\n" + keep + echo(retro), nil},
		{"remove after the past sunset", "tools:\n" + keep, []string{"tool-removed-after-sunset echo"}},
		{"the same, allowed", allow("tool-removed-after-sunset") + "tools:\n" + keep, nil},
		{"re-add with message: integer", "tools:\n" + keep + strings.Replace(echo(""), "string", "integer", 1), []string{"input-type-narrowed echo"}},
	}
	for _, st := range steps {
		rr := reload(st.config)
		got := blocking(rr)
		if d := cmp.Diff(st.want, got); d != "" || (st.want == nil) != (rr.Result == ResultPublished) {
			t.Errorf("%s: %s, blocking findings mismatch (-want +got):\n%s", st.name, rr.Result, d)
		}
	}
	// With enough notice: deprecated on 2026-01-15 with sunset 2026-03-01,
	// removed on 2026-03-02: safe.
	if rr := reload("tools:\n" + keep + echo("    deprecated: {since: 2026-01-15, sunset: 2026-03-01}\n")); rr.Result != ResultPublished {
		t.Fatalf("re-adding echo as published before, deprecated with notice: %s %v", rr.Result, blocking(rr))
	}
	clock.Set(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	if rr := reload("tools:\n" + keep); rr.Result != ResultPublished {
		t.Errorf("removal after an announced sunset: %s %v", rr.Result, blocking(rr))
	}
}

// TestHardening04MinNotice: gate.minNotice is a duration or whole days,
// not negative; a deprecation whose sunset is closer than it needs
// permission, and one whose sunset is past always does.
func TestHardening04MinNotice(t *testing.T) {
	t.Parallel()
	const tools = "tools:\n  - name: a\n    inputSchema: {type: object}\n"
	for _, tc := range []struct {
		value string
		want  time.Duration
		err   bool
	}{
		{"7d", 7 * 24 * time.Hour, false}, {"36h", 36 * time.Hour, false}, {"0s", 0, false},
		{"-1d", 0, true}, {"-5m", 0, true}, {"7x", 0, true}, {"7", 0, true},
	} {
		cfg, err := serveconfig.ParseConfig("c.yaml", []byte("gate: {minNotice: "+tc.value+"}\n"+tools), nil)
		switch {
		case tc.err && err == nil:
			t.Errorf("minNotice %s: no error", tc.value)
		case !tc.err && (err != nil || cfg.Gate.EffectiveMinNotice() != tc.want):
			t.Errorf("minNotice %s: %v, %v; want %s", tc.value, cfg, err, tc.want)
		}
	}
	if cfg, err := serveconfig.ParseConfig("c.yaml", []byte(tools), nil); err != nil || cfg.Gate.EffectiveMinNotice() != serveconfig.DefaultMinNotice {
		t.Errorf("default minNotice: %v", err)
	}
	// The server's clock is 2026-01-15: a sunset the next day is inside
	// the default notice, outside a notice of 0s; a past one never is.
	for _, tc := range []struct{ gate, sunset, want string }{
		{"", "2026-01-16", ResultRefused},
		{"gate: {minNotice: 0s}\n", "2026-01-16", ResultPublished},
		{"gate: {minNotice: 0s}\n", "2026-01-14", ResultRefused},
	} {
		s, path := startServer(t, tools+"    handler: {static: {text: ok}}\n")
		writeFile(t, filepath.Dir(path), filepath.Base(path), tc.gate+tools+"    handler: {static: {text: ok}}\n    deprecated: {sunset: "+tc.sunset+"}\n")
		if rr := s.Reload(t.Context(), "test"); rr.Result != tc.want {
			t.Errorf("%q sunset %s: %s, want %s", tc.gate, tc.sunset, rr.Result, tc.want)
		}
	}
}
