package serve

import (
	"bytes"
	"encoding/json"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// Sharing unchanged tools between generations (docs/serve.md#active-conversations-pinning, "Pinned
// generations share unchanged tools with newer ones"): a candidate takes
// the live generation's *liveTool — compiled schemas, handler, validated
// static output — for every tool whose served bytes, handler config,
// facade and config folder are unchanged and whose handler would read the
// same environment. So a generation costs memory for what changed, and N
// pinned sessions on mostly equal generations cost little. A shared
// liveTool is refcounted by the generations holding it; its handler is
// closed when the last of them is released.

// envRead is one environment lookup a handler made when it was built.
type envRead struct {
	value string
	ok    bool
}

// recordEnv wraps getenv, recording every lookup into reads.
func recordEnv(getenv func(string) (string, bool), reads map[string]envRead) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := getenv(name)
		reads[name] = envRead{value: v, ok: ok}
		return v, ok
	}
}

// toolKey identifies what a tool's built state depends on beside its served
// bytes: the handler config, the facade and the config's folder (relative
// commands resolve against it). Positions are left out, so moving an entry
// in the file keeps it shared. "" means not shareable.
func toolKey(t *serveconfig.ToolConfig, dir string) string {
	if t.Handler == nil {
		return ""
	}
	k := struct {
		Dir        string
		Exec       *serveconfig.ExecConfig
		HTTP       *serveconfig.HTTPConfig
		StaticText *string
		StaticJSON []byte
		Facade     *facade.Block
		Upstream   []string
	}{Dir: dir, Exec: t.Handler.Exec, HTTP: t.Handler.HTTP, Facade: t.Facade}
	if u := t.Handler.Upstream; u != nil {
		k.Upstream = []string{u.Upstream, u.Tool, u.Conn, u.State}
	}
	if st := t.Handler.Static; st != nil {
		if st.JSON != nil {
			k.StaticJSON = canon.AppendOrdered(nil, st.JSON)
		} else {
			k.StaticText = &st.Text
		}
	}
	b, err := json.Marshal(k)
	if err != nil {
		return ""
	}
	return string(b)
}

// reuseTool returns prev's liveTool for t, with a reference taken for the
// candidate, when t is unchanged: the same served bytes, the same key and
// the same values for every environment variable its handler read. It
// returns nil otherwise, or when prev's tool was already let go (its
// generations released while this candidate was being built).
func reuseTool(prev *Generation, t *serveconfig.ToolConfig, key string, getenv func(string) (string, bool)) *liveTool {
	if prev == nil || key == "" {
		return nil
	}
	pt := prev.tools[t.Name]
	if pt == nil || pt.key != key || !bytes.Equal(pt.raw, t.Raw) {
		return nil
	}
	for name, r := range pt.env {
		if v, ok := getenv(name); v != r.value || ok != r.ok {
			return nil
		}
	}
	if !pt.acquire() {
		return nil
	}
	return pt
}

// acquire takes a generation's reference on a shared tool; it fails when
// the tool's last holder already let it go.
func (t *liveTool) acquire() bool {
	for {
		n := t.refs.Load()
		if n <= 0 {
			return false
		}
		if t.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// drop lets go of a generation's reference; the last closes the handler.
func (t *liveTool) drop() {
	if t.refs.Add(-1) == 0 {
		t.handler.Close()
	}
}
