package diff

import (
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// TestIssue11CompileErrorTextTyped: a schema that does not compile is
// rendered from the typed schema.CompileError (pointer and reason), not by
// splitting its message on " - at " and sorting the pieces. The
// reproduction: a property named "b - at a" whose type is not a type name;
// the split cut the property name apart and the sort moved "a/type'…"
// before "'/properties/b".
func TestIssue11CompileErrorTextTyped(t *testing.T) {
	t.Parallel()
	v, err := canon.Parse([]byte(`{"type":"object","properties":{"b - at a":{"type":"strin"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = schema.Compile(&v)
	if err == nil {
		t.Fatal("the schema compiled")
	}
	got := errorText(err)
	want := "at '/properties/b - at a/type': "
	if len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("errorText = %q, want it to start with %q", got, want)
	}
}
