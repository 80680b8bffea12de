package serve

import (
	"log/slog"
	"strings"
	"testing"
)

// TestNewcomerUpstreamToolNamesNotListedWarn (reproduction: an operator
// wrote tools: {include: [read_txt_file]} for server-filesystem; the
// gateway started and published 0 tools without a word). A name in
// tools.include, tools.exclude or facades that the upstream does not list
// is logged as a located warning naming the tools it does list.
func TestNewcomerUpstreamToolNamesNotListedWarn(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	files := newFakeUpstream(t)
	config := `upstreams:
  - name: files
    stdio: [fake-upstream]
    tools: {include: [read_file, serch], exclude: [slo]}
    facades: {red_file: {rename: {file: path}}}
`
	s, path := startServer(t, config, useFakes(map[string]*fakeUpstream{"files": files}),
		func(o *testOptions) { o.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	if s.Live().Set.Lookup("read_file") == nil {
		t.Fatal("read_file is not served")
	}
	l := logs.String()
	for _, want := range []string{
		path + `:2:5: /upstreams/0/tools/include/1: upstream \"files\" lists no tool \"serch\" (it lists read_file, search, slow)`,
		path + `:2:5: /upstreams/0/tools/exclude/0: upstream \"files\" lists no tool \"slo\"`,
		path + `:2:5: /upstreams/0/facades/red_file: upstream \"files\" lists no tool \"red_file\"`,
	} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q:\n%s", want, l)
		}
	}
}
