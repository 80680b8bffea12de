package serve

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

func TestGatewayConfigUpstreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `upstreams:
  - name: files
    stdio: [npx, -y, server-filesystem, /srv]
    env: [HOME]
    prefix: fs_
    tools: {exclude: [write_file]}
    facades: {read_file: {rename: {file: path}}}
    refresh: 5m
  - name: tickets
    http: {url: "https://tickets.example.com/mcp", headers: {Authorization: {env: TICKETS_AUTH}}}
    timeout: 5s
    startTimeout: 2m
gate: {descriptions: hold, upstream: auto-facade}
`)
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []*serveconfig.UpstreamConfig{
		{Name: "files", Stdio: []string{"npx", "-y", "server-filesystem", "/srv"}, Env: []string{"HOME"}, Prefix: "fs_",
			Exclude: []string{"write_file"}, Facades: facade.File{"read_file": {Rename: map[string]string{"file": "path"}}},
			Refresh: 5 * time.Minute, Timeout: serveconfig.DefaultUpstreamTimeout, StartTimeout: serveconfig.DefaultUpstreamStartTimeout},
		{Name: "tickets", HTTP: &serveconfig.UpstreamHTTP{URL: "https://tickets.example.com/mcp", Headers: map[string]string{"Authorization": "TICKETS_AUTH"}}, Timeout: 5 * time.Second, StartTimeout: 2 * time.Minute},
	}
	if d := cmp.Diff(want, cfg.Upstreams, cmpopts.IgnoreFields(serveconfig.UpstreamConfig{}, "Pos")); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if cfg.Upstreams[1].Pos.Line != 9 {
		t.Errorf("second upstream at line %d, want 9", cfg.Upstreams[1].Pos.Line)
	}
	if cfg.Gate.Descriptions != serveconfig.DescriptionsHold || cfg.Gate.Upstream != serveconfig.UpstreamAutoFacade {
		t.Errorf("gate = %+v", cfg.Gate)
	}
	if !cfg.Upstreams[0].Serves("read_file") || cfg.Upstreams[0].Serves("write_file") {
		t.Error("exclude not applied")
	}
}

func TestGatewayConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config, want string
	}{
		{"inline header secret", "upstreams:\n  - name: t\n    http: {url: 'http://127.0.0.1:1/mcp', headers: {Authorization: Bearer xyz}}\n",
			`c.yaml:3:68: /upstreams/0/http/headers/Authorization: header "Authorization": want {env: VARIABLE}; a value is never written in the config`},
		{"both transports", "upstreams:\n  - name: t\n    stdio: [x]\n    http: {url: 'http://127.0.0.1:1/mcp'}\n",
			`c.yaml:2:5: /upstreams/0: upstream "t" needs exactly one of stdio (a command list) or http`},
		{"no transport", "upstreams:\n  - name: t\n", `needs exactly one of stdio`},
		{"no name", "upstreams:\n  - stdio: [x]\n", `c.yaml:2:5: /upstreams/0: an upstreams entry needs a name`},
		{"duplicate upstream", "upstreams:\n  - {name: t, stdio: [x]}\n  - {name: t, stdio: [y]}\n", `c.yaml:3:12: /upstreams/1/name: upstream name "t" is already used by /upstreams/0`},
		{"env value", "upstreams:\n  - {name: t, stdio: [x], env: [A=1]}\n", `/upstreams/0/env/0: env lists names`},
		{"empty stdio", "upstreams:\n  - {name: t, stdio: []}\n", `/upstreams/0/stdio: stdio needs at least the program`},
		{"bad url", "upstreams:\n  - {name: t, http: {url: ftp://x}}\n", `/upstreams/0/http/url: url must be http:// or https://`},
		{"misspelled key", "upstreams:\n  - {name: t, stdio: [x], prefx: a_}\n", `/upstreams/0/prefx: unknown key "prefx" (want name, stdio, env, http, prefix, tools, facades, refresh, timeout, startTimeout, blue, green or rollout); did you mean "prefix"?`},
		{"bad refresh", "upstreams:\n  - {name: t, stdio: [x], refresh: often}\n", `/upstreams/0/refresh: want a positive duration`},
		{"bad tools key", "upstreams:\n  - {name: t, stdio: [x], tools: {only: [a]}}\n", `/upstreams/0/tools/only: unknown key "only" (want include or exclude)`},
		{"bad facade", "upstreams:\n  - {name: t, stdio: [x], facades: {a: {renames: {}}}}\n", `/upstreams/0/facades/a/renames: facade of "a": unknown key "renames"`},
		{"bad gate.upstream", "tools: []\ngate: {upstream: allow}\n", `c.yaml:2:18: /gate/upstream: gate.upstream: unknown value "allow" (want refuse or auto-facade)`},
		{"bad gate.descriptions", "tools: []\ngate: {descriptions: hod}\n", `gate.descriptions: unknown value "hod" (want notice or hold); did you mean "hold"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "c.yaml", tc.config)
			_, err := serveconfig.LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, toolset.ErrInput) {
				t.Errorf("error does not wrap toolset.ErrInput: %v", err)
			}
			if got := strings.ReplaceAll(err.Error(), dir+"/", ""); !strings.Contains(got, tc.want) {
				t.Errorf("error %q does not contain %q", got, tc.want)
			}
		})
	}
}
