package diff

import (
	"testing"
)

// TestDeepSchemaDecided is issue 9 item 11: a change at the bottom of a
// schema nested 200 levels deep was reported undecided ("schemas nested
// deeper than 128 levels are not compared"). Every depth the parser
// accepts (canon.MaxDepth) is compared: the change is found, decided and
// proved by a witness. (BenchmarkScale/depth-1000 runs 990 levels; it is
// too slow for a unit test, mostly in the validator's own compile.)
func TestDeepSchemaDecided(t *testing.T) {
	for _, tt := range []struct {
		name  string
		depth int
		items bool
	}{
		{"200 levels of properties", 200, false},
		{"300 levels of array items", 300, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := decodeToolSet(t, "old", deepSchema(tt.depth, tt.items, 10))
			new := decodeToolSet(t, "new", deepSchema(tt.depth, tt.items, 5))
			r := Compare(old, new, Options{})
			if len(r.Changes) != 1 {
				t.Fatalf("want one finding, got %d:%s", len(r.Changes), changeSummary(r))
			}
			c := r.Changes[0]
			if c.Rule != "input-max-length-lowered" || c.Undecided || len(c.Witness) == 0 || string(c.Witness) == "null" {
				t.Errorf("want a decided input-max-length-lowered with a witness, got:%s", changeSummary(r))
			}
			checkWitnesses(t, old, new, r)
		})
	}
}
