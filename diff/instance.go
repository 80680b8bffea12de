package diff

import (
	"math/big"
	"math/rand/v2"
	"regexp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/instance"
)

// This file gives the rules the names they use for what internal/instance
// implements: the instance generator (witnesses, --verify, rename
// fitting; callcheck's self-healing example uses the same one), the type
// sets and the local keyword checks it is built on.

// types is a set of JSON Schema instance types (instance.Types).
type types instance.Types

const (
	tNull     = types(instance.Null)
	tBool     = types(instance.Bool)
	tObject   = types(instance.Object)
	tArray    = types(instance.Array)
	tString   = types(instance.String)
	tInteger  = types(instance.Integer)
	tFraction = types(instance.Fraction)
	tNumber   = types(instance.Number)
	tAll      = types(instance.All)
)

func (t types) String() string                   { return instance.Types(t).String() }
func (t types) typeValue() (canon.Value, bool)   { return instance.Types(t).TypeValue() }
func typeBits(name string) types                 { return types(instance.TypeBits(name)) }
func declaredTypes(tv *canon.Value) types        { return types(instance.DeclaredTypes(tv)) }
func kindOf(v *canon.Value) types                { return types(instance.KindOf(v)) }
func typesOf(s *canon.Value) types               { return types(instance.TypesOf(s)) }
func typeKeyword(kw string) types                { return types(instance.TypeKeywords[kw]) }
func ratOf(v *canon.Value) (*big.Rat, bool)      { return instance.RatOf(v) }
func intOf(v *canon.Value) (int64, bool)         { return instance.IntOf(v) }
func ratText(r *big.Rat) string                  { return instance.RatText(r) }
func isMultiple(a, b *big.Rat) bool              { return instance.IsMultiple(a, b) }
func admits(s, v *canon.Value) bool              { return instance.Admits(s, v) }
func admitsMember(s, v *canon.Value) bool        { return instance.AdmitsMember(s, v) }
func admitsFormat(s, v *canon.Value, d int) bool { return instance.AdmitsFormat(s, v, d) }
func compileRegexp(p string) *regexp.Regexp      { return instance.CompileRegexp(p) }
func requiredNames(s *canon.Value) []string      { return instance.RequiredNames(s) }
func propSchema(s *canon.Value, key string) *canon.Value {
	return instance.PropSchema(s, key)
}
func regexSamples(p string, n int, rng *rand.Rand) []string {
	return instance.RegexSamples(p, n, rng)
}
func mergeSchemas(a, b *canon.Value) (canon.Value, bool) { return instance.Merge(a, b) }

// bound is a numeric bound (instance.Bound) as the constraint rules read
// it.
type bound struct {
	v    *big.Rat
	excl bool
	set  bool
	kw   string       // the keyword that sets it
	src  *canon.Value // its value
}

func fromBound(b instance.Bound) bound {
	return bound{v: b.V, excl: b.Excl, set: b.Set, kw: b.KW, src: b.Src}
}

func (b bound) instance() instance.Bound {
	return instance.Bound{V: b.v, Excl: b.excl, Set: b.set, KW: b.kw, Src: b.src}
}

func lowerBound(s *canon.Value, intOnly bool) bound {
	return fromBound(instance.LowerBound(s, intOnly))
}
func upperBound(s *canon.Value, intOnly bool) bound {
	return fromBound(instance.UpperBound(s, intOnly))
}
func tighterLower(a, b bound) int { return instance.TighterLower(a.instance(), b.instance()) }
func tighterUpper(a, b bound) int { return instance.TighterUpper(a.instance(), b.instance()) }

// instanceGen is the generator on one side of a comparison: references
// resolve in that side's normalized schema.
type instanceGen struct {
	sd   *schemaSide
	rng  *rand.Rand // nil: deterministic
	rich bool
}

func (g *instanceGen) gen() *instance.Gen {
	ig := &instance.Gen{Rng: g.rng, Rich: g.rich}
	if g.sd != nil {
		ig.Resolve = g.sd.resolve
	}
	return ig
}

func (g *instanceGen) value(s *canon.Value) canon.Value { return g.gen().Value(s) }

func (g *instanceGen) variants(s *canon.Value, limit int) []canon.Value {
	return g.gen().Variants(s, limit)
}
