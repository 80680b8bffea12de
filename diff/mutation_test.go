package diff

import (
	"math/rand/v2"
	"testing"

	"github.com/mcpctl/mcpctl/toolset"
)

// TestMutationsOfRealTools mutates real tools' schemas (seeded, so the run
// is reproducible) and checks every comparison: each witness holds, each
// breaking or facade finding has a witness or says why not, and --verify
// finds no counterexample to a verdict (a rule bug).
func TestMutationsOfRealTools(t *testing.T) {
	t.Parallel()
	n := 1500
	if testing.Short() {
		n = 200
	}
	sets := []string{"server-filesystem/2025.11.25", "server-filesystem/2026.7.10", "github-mcp-server/v1.10.0", "github-mcp-server/v0.11.0"}
	loaded := make([]*toolset.Set, len(sets))
	for i, s := range sets {
		loaded[i] = loadReal(t, s)
	}
	rng := rand.New(rand.NewPCG(20261130, 2))
	for i := 0; i < n && !t.Failed(); i++ {
		full := loaded[i%len(loaded)]
		tl := full.Tools[rng.IntN(len(full.Tools))]
		one := decodeToolSet(t, "one", append(append([]byte(`{"tools":[`), tl.Raw...), "]}"...))
		choices := make([]byte, 16)
		for j := range choices {
			choices[j] = byte(rng.IntN(256))
		}
		m := mutateSet(t, one, choices, 6)
		r := Compare(one, m, Options{Verify: 32})
		checkWitnesses(t, one, m, r)
		for _, c := range r.Changes {
			if c.RuleBug {
				t.Errorf("rule bug on %s %s: witness %s\nold %s\nnew %s%s", c.Tool, c.Direction, c.Witness,
					jcsString(schemaOf(one, c.Tool, c.Direction)), jcsString(schemaOf(m, c.Tool, c.Direction)), changeSummary(r))
			}
		}
	}
}
