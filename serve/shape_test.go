package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// realCheckTool is the callcheck.Tool of tool name in the real tools/list
// of server-filesystem at version (testdata/realdata), with facade fb.
func realCheckTool(t *testing.T, version, name string, fb *facade.Block) *callcheck.Tool {
	t.Helper()
	path := filepath.Join("..", "testdata", "realdata", "server-filesystem", version+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := toolset.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	tool := set.Lookup(name)
	if tool == nil {
		t.Fatalf("%s has no tool %s", path, name)
	}
	return checkTool(t, name, tool.InputSchema(), fb)
}

// checkTool is the callcheck.Tool of name with input schema in and facade fb.
func checkTool(t *testing.T, name string, in *canon.Value, fb *facade.Block) *callcheck.Tool {
	t.Helper()
	c, err := schema.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	return &callcheck.Tool{Name: name, Schema: in, Compiled: c, Facade: fb}
}

// jsonValue parses JSON text.
func jsonValue(t *testing.T, text string) *canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

// TestShapeRouting pins routeByShape on the real breaking change of
// server-filesystem 2025.8.18 (blue) → 2025.11.25 (green):
// read_multiple_files' paths gained minItems: 1, so {"paths": []} is valid
// only under blue's accepted schema; while blue lives it goes to blue,
// afterwards it gets green's self-healing error, or green's facade
// translation when one turns it into a valid call.
func TestShapeRouting(t *testing.T) {
	t.Parallel()
	const tool = "read_multiple_files"
	blue := realCheckTool(t, "2025.8.18", tool, nil)
	green := realCheckTool(t, "2025.11.25", tool, nil)
	// A change green's facade can also carry: limit became required (the
	// facade fills it in), and blue's schema is closed.
	blueClosed := checkTool(t, "search", jsonValue(t, `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`), nil)
	greenDefaults := checkTool(t, "search", jsonValue(t, `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"}},"required":["limit"]}`),
		&facade.Block{Defaults: map[string]any{"limit": float64(20)}})
	names := []string{tool, "read_text_file"}
	cases := []struct {
		name          string
		green, blue   *callcheck.Tool
		alive         bool
		call          facade.Call
		want          serveconfig.Side
		wantOutcome   callcheck.Outcome
		wantInMessage string
	}{
		{"valid on both: green", green, blue, true, call(tool, `{"paths":["a"]}`), serveconfig.SideGreen, callcheck.Accepted, ""},
		{"valid only on blue, blue alive: blue", green, blue, true, call(tool, `{"paths":[]}`), serveconfig.SideBlue, callcheck.Accepted, ""},
		{"valid only on blue, blue retired: self-healing error", green, blue, false, call(tool, `{"paths":[]}`), serveconfig.SideNeither, callcheck.Rejected, "/paths"},
		{"valid only on green (blue closed its schema): green", green, blue, true, call(tool, `{"paths":["a"],"x":1}`), serveconfig.SideGreen, callcheck.Accepted, ""},
		{"valid nowhere: green's self-healing error", green, blue, true, call(tool, `{"paths":"a"}`), serveconfig.SideNeither, callcheck.Rejected, "example of valid arguments"},
		{"tool only on blue, alive: blue", nil, blue, true, call(tool, `{"paths":[]}`), serveconfig.SideBlue, callcheck.Accepted, ""},
		{"tool only on blue, invalid: blue's message", nil, blue, true, call(tool, `{}`), serveconfig.SideNeither, callcheck.Rejected, "/paths"},
		{"tool only on blue, retired: unknown tool", nil, blue, false, call(tool, `{"paths":[]}`), serveconfig.SideNeither, callcheck.Unknown, tool},
		{"blue as sent before green's facade: blue", greenDefaults, blueClosed, true, call("search", `{"q":"x"}`), serveconfig.SideBlue, callcheck.Accepted, ""},
		{"blue retired: green's facade", greenDefaults, blueClosed, false, call("search", `{"q":"x"}`), serveconfig.SideGreen, callcheck.Translated, ""},
		{"blue's own facade is not applied", checkTool(t, "search", greenDefaults.Schema, nil), checkTool(t, "search", blueClosed.Schema, &facade.Block{Rename: map[string]string{"query": "q"}}), true, call("search", `{"query":"x"}`), serveconfig.SideNeither, callcheck.Rejected, "/limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			side, v := routeByShape(c.green, c.blue, c.alive, c.call, names)
			if diff := cmp.Diff([]any{c.want, c.wantOutcome}, []any{side, v.Outcome}); diff != "" {
				t.Fatalf("mismatch (-want +got):\n%s\nmessage: %s", diff, v.Message)
			}
			if !strings.Contains(v.Message, c.wantInMessage) {
				t.Errorf("message %q does not contain %q", v.Message, c.wantInMessage)
			}
		})
	}
}

// TestShapeRoutingTranslatesAfterRetirement: once blue is retired, a call
// green's facade can carry is translated to green, not refused.
func TestShapeRoutingTranslatesAfterRetirement(t *testing.T) {
	t.Parallel()
	blue := realCheckTool(t, "2025.8.18", "read_text_file", nil)
	green := realCheckTool(t, "2025.11.25", "read_text_file", &facade.Block{Rename: map[string]string{"file": "path"}})
	old := call("read_text_file", `{"file":"/a"}`)
	side, v := routeByShape(green, blue, false, old, nil)
	if side != serveconfig.SideGreen || v.Outcome != callcheck.Translated {
		t.Fatalf("got %s %v (%s), want green translated", side, v.Outcome, v.Message)
	}
	if diff := cmp.Diff(map[string]any{"path": "/a"}, v.Call.Arguments); diff != "" {
		t.Errorf("translated arguments mismatch (-want +got):\n%s", diff)
	}
}

// call is a facade.Call of tool with the JSON object args.
func call(tool, args string) facade.Call {
	v, err := canon.Parse([]byte(args))
	if err != nil {
		panic(err)
	}
	return facade.Call{Tool: tool, Arguments: schema.Instance(&v).(map[string]any)}
}

// BenchmarkShapeRouting reports what routing by shape costs over the check
// every call gets anyway (callcheck.CheckCall against green, measured in
// the same run): ratio_green for a call green accepts, ratio_blue for one
// only blue accepts (the real read_multiple_files minItems break).
func BenchmarkShapeRouting(b *testing.B) {
	t := &testing.T{}
	blue := realCheckTool(t, "2025.8.18", "read_multiple_files", nil)
	green := realCheckTool(t, "2025.11.25", "read_multiple_files", nil)
	ok, old := call("read_multiple_files", `{"paths":["a","b"]}`), call("read_multiple_files", `{"paths":[]}`)
	measure := func(f func()) float64 {
		start := time.Now()
		for range b.N {
			f()
		}
		return float64(time.Since(start).Nanoseconds()) / float64(b.N)
	}
	b.ResetTimer()
	base := measure(func() { callcheck.CheckCall(green, ok, nil) })
	routedGreen := measure(func() { routeByShape(green, blue, true, ok, nil) })
	routedBlue := measure(func() { routeByShape(green, blue, true, old, nil) })
	b.ReportMetric(base, "check-ns/op")
	b.ReportMetric(routedGreen/base, "ratio_green")
	b.ReportMetric(routedBlue/base, "ratio_blue")
}
