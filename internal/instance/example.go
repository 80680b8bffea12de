package instance

import (
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// maxExampleVariants bounds the variants Examples tries after the minimal
// and the rich instance.
const maxExampleVariants = 32

// Examples returns up to n distinct instances of s that c (the compiled
// schema s stands for) accepts, decoded as schema.Instance does: the
// minimal instance first, then the rich one (every declared property);
// Gen.Variants only when neither validates (they cost more than both).
// resolve follows references in s (nil: none). Every
// result is checked with the validator; none when nothing validates.
func Examples(c *schema.Compiled, s *canon.Value, resolve func(*canon.Value) (*canon.Value, bool), n int) []any {
	if c == nil || s == nil || n <= 0 {
		return nil
	}
	g := &Gen{Resolve: resolve}
	rich := &Gen{Resolve: resolve, Rich: true}
	cands := []canon.Value{g.Value(s), rich.Value(s)}
	var out []any
	seen := map[string]bool{}
	for i := 0; len(out) < n; i++ {
		if i == 2 && len(out) == 0 {
			cands = append(cands, g.Variants(s, maxExampleVariants)...)
		}
		if i == len(cands) {
			break
		}
		k := string(canon.AppendJCS(nil, &cands[i]))
		if seen[k] {
			continue
		}
		seen[k] = true
		if inst := schema.Instance(&cands[i]); c.Valid(inst) {
			out = append(out, inst)
		}
	}
	return out
}
