package serve

import (
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// TestIssue11CompileErrorPointerTyped: a schema that does not compile is
// located by the compiler's typed error (schema.CompileError.Pointer), not
// by a regexp over its message. The reproduction: a property named "it's"
// whose type is wrong; the message quotes the location as 'it\'s', which
// the old regexp `at '([^']*)'` cut at the escaped quote.
func TestIssue11CompileErrorPointerTyped(t *testing.T) {
	t.Parallel()
	v, err := canon.Parse([]byte(`{"name":"t","inputSchema":{"type":"object","properties":{"it's":{"type":"strin"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tc := &serveconfig.ToolConfig{Name: "t", Value: v}
	var got []string
	compileTool(&compiledTool{cfg: tc}, func(_ *serveconfig.ToolConfig, ptr, _ string, _ ...any) { got = append(got, ptr) })
	want := "/inputSchema/properties/it's/type"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("pointers = %q, want [%q]", got, want)
	}
}
