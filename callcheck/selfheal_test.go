package callcheck_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// selfHealingFields are the five argument schemas of issue 11 for which
// the self-healing message of serve and replay had no example line while
// diff's generator built a valid instance: a pattern, a fractional
// multipleOf, unique integers, a bound past float64's exact integers, and
// a format with minLength.
var selfHealingFields = []struct{ name, field string }{
	{"pattern", `{"type":"string","pattern":"^[A-Z]{3}-[0-9]+$"}`},
	{"fractional-multipleOf", `{"type":"number","multipleOf":0.25,"minimum":0.3}`},
	{"uniqueItems-integers", `{"type":"array","items":{"type":"integer"},"uniqueItems":true,"minItems":3}`},
	{"big-integer-bound", `{"type":"integer","minimum":100000000000000000000000}`},
	{"format-minLength", `{"type":"string","format":"date","minLength":10}`},
}

// TestSelfHealingExamples renders callcheck.Message (what serve answers
// and replay reports) for the call {} under each schema, given whole and
// as the required argument a; every message must end with an example of valid arguments
// that the schema accepts. Golden: testdata/selfheal.golden.
func TestSelfHealingExamples(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, tc := range selfHealingFields {
		for _, src := range []string{tc.field, `{"type":"object","properties":{"a":` + tc.field + `},"required":["a"]}`} {
			selfHealing(t, &b, tc.name, src)
		}
	}
	golden := filepath.Join("testdata", "selfheal.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("self-healing messages differ from %s (run with -update):\n%s", golden, got)
	}
}

// selfHealing appends the message for the call {} under the schema src
// to b, and fails unless it has an example line.
func selfHealing(t *testing.T, b *strings.Builder, name, src string) {
	t.Helper()
	s, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{}
	msg := callcheck.Message(c, &s, args, c.Validate(args))
	b.WriteString("## " + name + "\n# schema: " + src + "\n# call: {}\n" + msg + "\n\n")
	if !strings.Contains(msg, "example of valid arguments: ") {
		t.Errorf("%s: no example line for %s in\n%s", name, src, msg)
	}
}
