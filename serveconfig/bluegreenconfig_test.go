package serveconfig

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/toolset"
)

func TestBlueGreenConfig(t *testing.T) {
	t.Parallel()
	path := writeFile(t, t.TempDir(), "c.yaml", `upstreams:
  - name: files
    prefix: fs_
    blue:  {stdio: [npx, -y, "@modelcontextprotocol/server-filesystem@2025.8.18", /srv], env: [HOME]}
    green: {http: {url: "http://127.0.0.1:9/mcp"}}
    rollout: {newSessions: blue, retireBlueAfter: 30m}
  - name: plain
    stdio: [x]
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	u := cfg.Upstreams[0]
	want := &UpstreamConfig{Name: "files", Prefix: "fs_", Timeout: DefaultUpstreamTimeout, StartTimeout: DefaultUpstreamStartTimeout,
		HTTP:    &UpstreamHTTP{URL: "http://127.0.0.1:9/mcp"}, // green's connection is the live one
		Blue:    &UpstreamConn{Stdio: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem@2025.8.18", "/srv"}, Env: []string{"HOME"}},
		Green:   &UpstreamConn{HTTP: &UpstreamHTTP{URL: "http://127.0.0.1:9/mcp"}},
		Rollout: &Rollout{NewSessions: SideBlue, RetireBlueAfter: 30 * time.Minute}}
	if d := cmp.Diff(want, u, cmpopts.IgnoreFields(UpstreamConfig{}, "Pos")); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	// Each side is a plain upstream to the gateway core.
	blue, green := cfg.OnSide(SideBlue), cfg.OnSide(SideGreen)
	if got := blue.Upstreams[0]; got.Stdio[2] != "@modelcontextprotocol/server-filesystem@2025.8.18" || got.HTTP != nil || got.HasRollout() || got.Prefix != "fs_" {
		t.Errorf("blue side = %+v", got)
	}
	if got := green.Upstreams[0]; got.HTTP == nil || got.Stdio != nil || got.Env != nil || got.HasRollout() {
		t.Errorf("green side = %+v", got)
	}
	if blue.Upstreams[1] != cfg.Upstreams[1] || cfg.Upstreams[0].Blue == nil {
		t.Error("OnSide changed an upstream without sides, or cfg itself")
	}
	if r, ok := cfg.Rollout(); !ok || r.NewSessions != SideBlue || r.RetireBlueAfter != 30*time.Minute {
		t.Errorf("Rollout() = %+v, %v", r, ok)
	}
	// Defaults: new sessions green, blue retired after an hour.
	path = writeFile(t, t.TempDir(), "c.yaml", "upstreams:\n  - {name: f, blue: {stdio: [a]}, green: {stdio: [b]}}\n")
	if cfg, err = LoadConfig(path); err != nil {
		t.Fatal(err)
	}
	if r, ok := cfg.Rollout(); !ok || r != (Rollout{NewSessions: SideGreen, RetireBlueAfter: DefaultRetireBlueAfter}) {
		t.Errorf("default Rollout() = %+v, %v", r, ok)
	}
}

func TestBlueGreenConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, config, want string
	}{
		{"blue without green", "upstreams:\n  - name: f\n    blue: {stdio: [a]}\n",
			`c.yaml:3:5: /upstreams/0/blue: upstream "f" has a blue side but no green side: a blue/green upstream needs both`},
		{"green without blue", "upstreams:\n  - {name: f, green: {stdio: [a]}}\n", `/upstreams/0/green: upstream "f" has a green side but no blue side`},
		{"stdio beside sides", "upstreams:\n  - name: f\n    stdio: [x]\n    blue: {stdio: [a]}\n    green: {stdio: [b]}\n",
			`c.yaml:3:5: /upstreams/0/stdio: upstream "f" has blue and green sides: its stdio goes in each side, not beside them`},
		{"http beside sides", "upstreams:\n  - {name: f, http: {url: 'http://127.0.0.1:1/'}, blue: {stdio: [a]}, green: {stdio: [b]}}\n", `/upstreams/0/http: upstream "f" has blue and green sides: its http goes in each side`},
		{"env beside sides", "upstreams:\n  - {name: f, env: [HOME], blue: {stdio: [a]}, green: {stdio: [b]}}\n", `/upstreams/0/env: upstream "f" has blue and green sides: its env goes in each side`},
		{"rollout without sides", "upstreams:\n  - {name: f, stdio: [a], rollout: {newSessions: green}}\n", `/upstreams/0/rollout: upstream "f": rollout needs blue and green sides`},
		{"side with both transports", "upstreams:\n  - {name: f, blue: {stdio: [a], http: {url: 'http://127.0.0.1:1/'}}, green: {stdio: [b]}}\n", `/upstreams/0/blue: a side needs exactly one of stdio (a command list) or http`},
		{"empty side", "upstreams:\n  - {name: f, blue: {}, green: {stdio: [b]}}\n", `/upstreams/0/blue: a side needs exactly one of stdio`},
		{"side not a mapping", "upstreams:\n  - {name: f, blue: [a], green: {stdio: [b]}}\n", `/upstreams/0/blue: a blue or green side must be a mapping {stdio, env} or {http}, got array`},
		{"env on an http side", "upstreams:\n  - {name: f, blue: {http: {url: 'http://127.0.0.1:1/'}, env: [A]}, green: {stdio: [b]}}\n", `/upstreams/0/blue/env: env is for a stdio side`},
		{"misspelled side key", "upstreams:\n  - {name: f, blue: {stdoi: [a]}, green: {stdio: [b]}}\n", `/upstreams/0/blue/stdoi: unknown key "stdoi" (want stdio, env or http); did you mean "stdio"?`},
		{"bad newSessions", "upstreams:\n  - {name: f, blue: {stdio: [a]}, green: {stdio: [b]}, rollout: {newSessions: gren}}\n", `/upstreams/0/rollout/newSessions: newSessions: unknown side "gren" (want blue or green); did you mean "green"?`},
		{"bad retireBlueAfter", "upstreams:\n  - {name: f, blue: {stdio: [a]}, green: {stdio: [b]}, rollout: {retireBlueAfter: soon}}\n", `/upstreams/0/rollout/retireBlueAfter: want a positive duration`},
		{"misspelled rollout key", "upstreams:\n  - {name: f, blue: {stdio: [a]}, green: {stdio: [b]}, rollout: {newSession: blue}}\n", `/upstreams/0/rollout/newSession: unknown key "newSession" (want newSessions or retireBlueAfter); did you mean "newSessions"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := LoadConfig(writeFile(t, dir, "c.yaml", tc.config))
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
