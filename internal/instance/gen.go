package instance

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// Gen builds instances of schemas (docs/diff.md#witnesses-and-verification),
// for diff's witnesses and --verify, rename fitting, and the example of
// serve's and replay's self-healing message: a deterministic minimal
// instance (required properties only, defaults, examples and enum members
// preferred), a "rich" one (every declared property), local boundary
// samples for witnesses, and seeded random instances for --verify. Results
// are candidates: callers check them with the validator.
type Gen struct {
	// Resolve follows the $ref of a subschema to its target (ok false when
	// it does not resolve); nil: schemas hold no references.
	Resolve func(s *canon.Value) (*canon.Value, bool)
	Rng     *rand.Rand // nil: deterministic
	Rich    bool
	// depth bounds nesting (recursive schemas).
	depth int
}

const maxGenDepth = 16

// resolve follows references on the generator's side.
func (g *Gen) resolve(s *canon.Value) *canon.Value {
	if s == nil {
		return nil
	}
	if g.Resolve != nil {
		if r, ok := g.Resolve(s); ok {
			return r
		}
		return nil
	}
	return s
}

func (g *Gen) coin() bool { return g.Rng != nil && g.Rng.IntN(2) == 0 }

// Value returns one instance of s.
func (g *Gen) Value(s *canon.Value) canon.Value {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 2*maxGenDepth {
		return canon.NullValue() // an infinitely deep required structure
	}
	s = g.resolve(s)
	switch {
	case s == nil:
		return canon.StringValue("x")
	case s.Kind == canon.Bool:
		return anyPool()[0]
	case s.Kind != canon.Object:
		return canon.NullValue()
	}
	if v, ok := g.given(s); ok {
		return v
	}
	if v, ok := g.enumerated(s); ok {
		return v
	}
	if v, ok := g.branch(s); ok {
		return v
	}
	if a := s.Get("allOf"); a != nil && a.Kind == canon.Array && g.depth < maxGenDepth {
		return g.allOf(s, a)
	}
	return g.typed(s)
}

// given returns the schema's default or first example when valid
// (deterministic generation only; a random one still draws its coin).
func (g *Gen) given(s *canon.Value) (canon.Value, bool) {
	if g.Rng != nil && !g.coin() {
		return canon.Value{}, false
	}
	if d := s.Get("default"); d != nil && g.admitsAll(s, d) && g.Rng == nil {
		return d.Clone(), true
	}
	if ex := s.Get("examples"); ex != nil && ex.Kind == canon.Array && len(ex.Items) > 0 && g.admitsAll(s, &ex.Items[0]) && g.Rng == nil {
		return ex.Items[0].Clone(), true
	}
	return canon.Value{}, false
}

// enumerated returns the const, or an enum member the local keywords
// admit (any member when none does).
func (g *Gen) enumerated(s *canon.Value) (canon.Value, bool) {
	if c := s.Get("const"); c != nil {
		return c.Clone(), true // a schema not normalized (diff folds const into enum)
	}
	e := s.Get("enum")
	if e == nil || e.Kind != canon.Array || len(e.Items) == 0 {
		return canon.Value{}, false
	}
	var ok []canon.Value
	for i := range e.Items {
		if Admits(s, &e.Items[i]) {
			ok = append(ok, e.Items[i])
		}
	}
	if len(ok) == 0 {
		ok = e.Items
	}
	if g.Rng != nil {
		return ok[g.Rng.IntN(len(ok))].Clone(), true
	}
	return ok[0].Clone(), true
}

// branch returns an instance of one oneOf (else anyOf) branch, joined with
// the rest of s.
func (g *Gen) branch(s *canon.Value) (canon.Value, bool) {
	for _, kw := range []string{"oneOf", "anyOf"} {
		if a := s.Get(kw); a != nil && a.Kind == canon.Array && len(a.Items) > 0 && g.depth < maxGenDepth {
			i := 0
			if g.Rng != nil {
				i = g.Rng.IntN(len(a.Items))
			}
			return g.Value(g.conj(s, kw, &a.Items[i])), true
		}
	}
	return canon.Value{}, false
}

// allOf returns an instance of s with its allOf branches a merged in where
// the merge is exact; the others are satisfied by joining patterns when
// the instance misses them.
func (g *Gen) allOf(s, a *canon.Value) canon.Value {
	m := s.Clone()
	m.Delete("allOf")
	var rest []*canon.Value // branches that do not merge exactly
	for i := range a.Items {
		b := g.resolve(&a.Items[i])
		if b == nil {
			continue
		}
		if mv, ok := Merge(&m, b); ok {
			m = mv
		} else {
			rest = append(rest, b)
		}
	}
	v := g.Value(&m)
	if !admitsEach(rest, &v) {
		if w, ok := joinPatterns(&m, rest); ok {
			return w
		}
	}
	return v
}

// typed returns an instance of the type chooseType picks.
func (g *Gen) typed(s *canon.Value) canon.Value {
	switch t := g.chooseType(s); t {
	case Object:
		return g.object(s)
	case Array:
		return g.array(s)
	case String:
		return g.str(s)
	case Integer, Fraction:
		return g.number(s, t)
	case Bool:
		return canon.BoolValue(g.Rng != nil && g.coin())
	}
	return canon.NullValue()
}

// admitsAll is Admits of s and of each of its allOf branches.
func (g *Gen) admitsAll(s, v *canon.Value) bool {
	if !Admits(s, v) {
		return false
	}
	if a := s.Get("allOf"); a != nil && a.Kind == canon.Array {
		for i := range a.Items {
			if !Admits(g.resolve(&a.Items[i]), v) {
				return false
			}
		}
	}
	return true
}

// admitsEach reports whether every schema of ss admits v.
func admitsEach(ss []*canon.Value, v *canon.Value) bool {
	for _, s := range ss {
		if !Admits(s, v) {
			return false
		}
	}
	return true
}

// joinPatterns builds a string for the conjunction of s and branches
// whose patterns do not merge into one (allOf [{pattern: "b$"}, {pattern:
// "c"}] under pattern "^a"): one sample of each pattern, those anchored
// at the start first and those anchored at the end last ("acb"), kept
// when s and every branch admit it.
func joinPatterns(s *canon.Value, branches []*canon.Value) (canon.Value, bool) {
	var head, mid, tail []string
	for _, b := range append([]*canon.Value{s}, branches...) {
		p := b.Get("pattern")
		if p == nil || p.Kind != canon.String {
			continue
		}
		xs := RegexSamples(p.Str, 1, nil)
		if len(xs) == 0 {
			return canon.Value{}, false
		}
		switch {
		case strings.HasPrefix(p.Str, "^"):
			head = append(head, xs[0])
		case strings.HasSuffix(p.Str, "$"):
			tail = append(tail, xs[0])
		default:
			mid = append(mid, xs[0])
		}
	}
	v := canon.StringValue(strings.Join(slices.Concat(head, mid, tail), ""))
	if !Admits(s, &v) || !admitsEach(branches, &v) {
		return canon.Value{}, false
	}
	return v, true
}

// conj returns s without its keyword kw, conjoined with branch b (merged
// when exact, else as allOf).
func (g *Gen) conj(s *canon.Value, kw string, b *canon.Value) *canon.Value {
	c := s.Clone()
	c.Delete(kw)
	rb := g.resolve(b)
	if rb == nil {
		return &c
	}
	if m, ok := Merge(&c, rb); ok {
		return &m
	}
	if len(c.Members) == 0 {
		return rb
	}
	m := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(c, rb.Clone())})
	return &m
}

// chooseType picks the instance type to build for s.
func (g *Gen) chooseType(s *canon.Value) Types {
	t := TypesOf(s)
	if t == 0 {
		return 0
	}
	if t == All {
		hint := Types(0)
		for _, m := range s.Members {
			hint |= TypeKeywords[m.Key]
		}
		if hint != 0 {
			t = hint
		} else if g.Rng == nil {
			return String
		}
	}
	order := []Types{Object, Array, String, Integer, Fraction, Bool, Null}
	var avail []Types
	for _, o := range order {
		if t&o != 0 {
			avail = append(avail, o)
		}
	}
	if g.Rng != nil {
		return avail[g.Rng.IntN(len(avail))]
	}
	return avail[0]
}

// PropSchema returns the schema that applies to member key of an object
// valid under s: its property schema, else a matching patternProperties
// schema, else additionalProperties (nil = any).
func PropSchema(s *canon.Value, key string) *canon.Value {
	if s == nil || s.Kind != canon.Object {
		return nil
	}
	if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
		if v := p.Get(key); v != nil {
			return v
		}
	}
	if pp := s.Get("patternProperties"); pp != nil && pp.Kind == canon.Object {
		for i := range pp.Members {
			if re := CompileRegexp(pp.Members[i].Key); re != nil && re.MatchString(key) {
				return &pp.Members[i].Value
			}
		}
	}
	return s.Get("additionalProperties")
}

// RequiredNames lists the "required" entries of s.
func RequiredNames(s *canon.Value) []string {
	r := s.Get("required")
	if r == nil || r.Kind != canon.Array {
		return nil
	}
	var out []string
	for _, it := range r.Items {
		if it.Kind == canon.String {
			out = append(out, it.Str)
		}
	}
	return out
}

func (g *Gen) object(s *canon.Value) canon.Value {
	o := &objectGen{g: g, s: s, out: canon.ObjectValue(), added: map[string]bool{}}
	for _, k := range RequiredNames(s) {
		o.add(k)
	}
	props := s.Get("properties")
	if props != nil && props.Kind != canon.Object {
		props = nil
	}
	if props != nil && g.depth < maxGenDepth {
		for _, m := range props.Members {
			if g.Rich || g.coin() {
				o.add(m.Key)
			}
		}
	}
	o.addDependentRequired()
	if minP, ok := IntOf(s.Get("minProperties")); ok {
		o.fillTo(minP, props)
	}
	if maxP, ok := IntOf(s.Get("maxProperties")); ok {
		o.trimTo(maxP)
	}
	o.out.IndexMembers()
	return o.out
}

// objectGen is one object instance of schema s being generated.
type objectGen struct {
	g     *Gen
	s     *canon.Value
	out   canon.Value
	added map[string]bool
}

// add adds member k, unless it is there or its schema is false.
func (o *objectGen) add(k string) {
	if o.added[k] {
		return
	}
	ps := PropSchema(o.s, k)
	if ps != nil && ps.Kind == canon.Bool && !ps.Bool {
		return
	}
	o.added[k] = true
	o.out.Members = append(o.out.Members, canon.Member{Key: k, Value: o.g.Value(ps)})
}

// addDependentRequired adds the members dependentRequired asks for by the
// members added.
func (o *objectGen) addDependentRequired() {
	dr := o.s.Get("dependentRequired")
	if dr == nil || dr.Kind != canon.Object {
		return
	}
	for _, m := range dr.Members {
		if !o.added[m.Key] || m.Value.Kind != canon.Array {
			continue
		}
		for _, d := range m.Value.Items {
			if d.Kind == canon.String {
				o.add(d.Str)
			}
		}
	}
}

// fillTo adds members up to minP (minProperties): the properties first
// (props, nil when none), then p0, p1, … (at most 64).
func (o *objectGen) fillTo(minP int64, props *canon.Value) {
	if props != nil {
		for _, m := range props.Members {
			if int64(len(o.out.Members)) >= minP {
				break
			}
			o.add(m.Key)
		}
	}
	for i := 0; int64(len(o.out.Members)) < minP && i < 64; i++ {
		o.add("p" + strconv.Itoa(i))
	}
}

// trimTo drops members beyond maxP (maxProperties), the required ones
// kept.
func (o *objectGen) trimTo(maxP int64) {
	if int64(len(o.out.Members)) <= maxP {
		return
	}
	req := RequiredNames(o.s)
	kept := o.out.Members[:0]
	for _, m := range o.out.Members {
		if slices.Contains(req, m.Key) || int64(len(kept)) < maxP {
			kept = append(kept, m)
		}
	}
	o.out.Members = kept
}

func (g *Gen) array(s *canon.Value) canon.Value {
	var prefix []canon.Value
	if p := s.Get("prefixItems"); p != nil && p.Kind == canon.Array {
		prefix = p.Items
	}
	items, contains := s.Get("items"), s.Get("contains")
	n, minC := g.arrayLen(s, len(prefix))
	unique := false
	if u := s.Get("uniqueItems"); u != nil && u.Kind == canon.Bool && u.Bool {
		unique = true
	}
	out := canon.ArrayValue()
	seen := map[string]bool{}
	for i := int64(0); i < n; i++ {
		var is *canon.Value
		switch {
		case contains != nil && i < minC && int(i) >= len(prefix):
			is = contains
		case int(i) < len(prefix):
			is = &prefix[i]
		default:
			is = items
		}
		v := g.Value(is)
		if unique {
			v = g.unseen(is, v, seen)
		}
		out.Items = append(out.Items, v)
	}
	return out
}

// arrayLen is how many items an instance of array schema s gets (nPrefix
// prefixItems), and how many of them contains (minContains) asks for.
func (g *Gen) arrayLen(s *canon.Value, nPrefix int) (n, minC int64) {
	if m, ok := IntOf(s.Get("minItems")); ok {
		n = m
	}
	if g.Rich && int64(nPrefix) > n {
		n = int64(nPrefix)
	}
	if g.Rng != nil {
		n += int64(g.Rng.IntN(3))
	}
	if s.Get("contains") != nil {
		minC = 1
		if m, ok := IntOf(s.Get("minContains")); ok {
			minC = m
		}
		n = max(n, minC)
	}
	if m, ok := IntOf(s.Get("maxItems")); ok && n > m {
		n = m
	}
	if items := s.Get("items"); items != nil && items.Kind == canon.Bool && !items.Bool && n > int64(nPrefix) {
		n = int64(nPrefix)
	}
	n = min(n, 32)
	if g.depth >= maxGenDepth {
		n = min(n, 1)
	}
	return n, minC
}

// unseen returns v, or when seen holds it one of the first variants of
// is that seen does not (up to 8 tries), and records it in seen
// (uniqueItems).
func (g *Gen) unseen(is *canon.Value, v canon.Value, seen map[string]bool) canon.Value {
	for try := 0; seen[string(canon.AppendJCS(nil, &v))] && try < 8; try++ {
		vs := g.Variants(is, 8)
		if try < len(vs) {
			v = vs[try]
		}
	}
	seen[string(canon.AppendJCS(nil, &v))] = true
	return v
}

func (g *Gen) str(s *canon.Value) canon.Value {
	minL, _ := IntOf(s.Get("minLength"))
	maxL, hasMax := IntOf(s.Get("maxLength"))
	fit := func(x string) (string, bool) {
		n := int64(len([]rune(x)))
		if n < minL {
			x += strings.Repeat("x", int(min(minL-n, 4096)))
		}
		if hasMax && int64(len([]rune(x))) > maxL {
			return "", false
		}
		return x, true
	}
	if f := s.Get("format"); f != nil && f.Kind == canon.String {
		if x, ok := formatSample(f.Str); ok {
			if y, ok := fit(x); ok {
				return canon.StringValue(y)
			}
		}
	}
	if p := s.Get("pattern"); p != nil && p.Kind == canon.String {
		for _, x := range RegexSamples(p.Str, 3, g.Rng) {
			sv := canon.StringValue(x)
			if Admits(s, &sv) {
				return sv
			}
			if y, ok := fit(x); ok {
				if sv := canon.StringValue(y); Admits(s, &sv) {
					return sv
				}
			}
		}
	}
	base := "x"
	if g.Rng != nil {
		n := g.Rng.IntN(6)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte("abcxyz019 -_"[g.Rng.IntN(12)])
		}
		base = b.String()
	}
	if hasMax && int64(len([]rune(base))) > maxL {
		base = string([]rune(base)[:maxL])
	}
	x, _ := fit(base)
	return canon.StringValue(x)
}

// formatSample returns a value of a well-known format (JSON Schema
// 2020-12 Validation §7.3).
func formatSample(f string) (string, bool) {
	s, ok := map[string]string{
		"date-time":             "2024-01-01T00:00:00Z",
		"date":                  "2024-01-01",
		"time":                  "00:00:00Z",
		"duration":              "P1D",
		"email":                 "user@example.com",
		"idn-email":             "user@example.com",
		"hostname":              "example.com",
		"idn-hostname":          "example.com",
		"ipv4":                  "192.0.2.1",
		"ipv6":                  "2001:db8::1",
		"uri":                   "https://example.com/",
		"uri-reference":         "https://example.com/",
		"iri":                   "https://example.com/",
		"iri-reference":         "https://example.com/",
		"uri-template":          "https://example.com/{id}",
		"uuid":                  "00000000-0000-4000-8000-000000000000",
		"json-pointer":          "/a",
		"relative-json-pointer": "0",
		"regex":                 "^a$",
	}[f]
	return s, ok
}

// number returns a number of type t (Integer or Fraction) within s's
// bounds and multipleOf.
func (g *Gen) number(s *canon.Value, t Types) canon.Value {
	intOnly := t == Integer
	for _, r := range g.numberCandidates(s, intOnly) {
		v := canon.NumberValue(RatText(r))
		if Admits(s, &v) && (KindOf(&v) == t || (t == Integer && KindOf(&v) == Integer)) {
			return v
		}
	}
	return canon.NumberValue("0")
}

// numberCandidates lists numbers near s's bounds and multiples.
func (g *Gen) numberCandidates(s *canon.Value, intOnly bool) []*big.Rat {
	lo, hi := LowerBound(s, intOnly), UpperBound(s, intOnly)
	one := big.NewRat(1, 1)
	half := big.NewRat(1, 2)
	var c []*big.Rat
	if g.Rng != nil {
		r := big.NewRat(int64(g.Rng.IntN(200)-100), 1)
		if lo.Set {
			r = new(big.Rat).Add(lo.V, big.NewRat(int64(g.Rng.IntN(10)), 1))
		}
		if !intOnly && g.coin() {
			r.Add(r, half)
		}
		c = append(c, r)
	}
	base := []*big.Rat{big.NewRat(0, 1), one, big.NewRat(-1, 1)}
	if !intOnly {
		base = []*big.Rat{half, big.NewRat(3, 2), big.NewRat(-1, 2), big.NewRat(0, 1)}
	}
	if lo.Set {
		c = append(c, lo.V, new(big.Rat).Add(lo.V, one))
		if !intOnly {
			c = append(c, new(big.Rat).Add(lo.V, half))
		}
	}
	if hi.Set {
		c = append(c, hi.V, new(big.Rat).Sub(hi.V, one))
		if !intOnly {
			c = append(c, new(big.Rat).Sub(hi.V, half))
		}
	}
	c = append(c, base...)
	if m, ok := RatOf(s.Get("multipleOf")); ok && m.Sign() > 0 {
		var ms []*big.Rat
		for _, x := range c {
			q := FloorRat(new(big.Rat).Quo(x, m))
			ms = append(ms, new(big.Rat).Mul(q, m), new(big.Rat).Mul(new(big.Rat).Add(q, one), m))
		}
		c = append(ms, c...)
	}
	return c
}

// RatText writes r as a JSON number (exact when r has a finite decimal
// expansion, else the nearest double).
func RatText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	d := new(big.Int).Set(r.Denom())
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		m := new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(d, bp, m)
			if rem.Sign() != 0 {
				break
			}
			d = q
		}
	}
	if d.Cmp(big.NewInt(1)) == 0 {
		s := r.FloatString(40)
		s = strings.TrimRight(s, "0")
		return strings.TrimSuffix(s, ".")
	}
	f, _ := r.Float64()
	return string(canon.AppendFloat(nil, f))
}

// anyPool is a small set of values of every type, for schemas that accept
// anything.
func anyPool() []canon.Value {
	return []canon.Value{
		canon.StringValue("x"), canon.NumberValue("0"), canon.BoolValue(true), canon.NullValue(),
		canon.NumberValue("0.5"), canon.StringValue(""), canon.ArrayValue(), canon.ObjectValue(),
		canon.BoolValue(false), canon.NumberValue("-1"),
	}
}

// Variants returns up to limit diverse instances of s, valid for its local
// keywords: boundary values of its bounds, every enum member, default and
// examples, values of each allowed type, each anyOf/oneOf branch.
func (g *Gen) Variants(s *canon.Value, limit int) []canon.Value {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 2*maxGenDepth {
		return nil
	}
	s = g.resolve(s)
	if s == nil {
		return nil
	}
	vs := &variantSet{s: s, limit: limit, seen: map[string]bool{}}
	switch {
	case s.Kind == canon.Bool:
		if s.Bool {
			vs.add(anyPool()...)
		}
		return vs.out
	case s.Kind != canon.Object:
		return nil
	case addEnumerated(vs, s):
		return vs.out
	}
	rich := *g
	rich.Rich = true
	g.annotatedVariants(vs, s, &rich)
	t := TypesOf(s)
	g.numberVariants(vs, s, t)
	if t&String != 0 {
		stringVariants(vs, s)
	}
	if t&Array != 0 {
		g.arrayVariants(vs, s, &rich)
	}
	if t&Object != 0 {
		g.objectVariants(vs, s, &rich)
	}
	if t == All {
		vs.add(anyPool()...)
	}
	return vs.out
}

// variantSet collects the distinct instances s admits, up to limit, in the
// order they are added.
type variantSet struct {
	s     *canon.Value
	limit int
	out   []canon.Value
	seen  map[string]bool
}

func (vs *variantSet) add(vals ...canon.Value) {
	for _, v := range vals {
		if len(vs.out) >= vs.limit || !Admits(vs.s, &v) {
			continue
		}
		k := string(canon.AppendJCS(nil, &v))
		if vs.seen[k] {
			continue
		}
		vs.seen[k] = true
		vs.out = append(vs.out, v)
	}
}

// addEnumerated adds the value of const or the members of enum, and
// reports whether s has either (then nothing else can be valid).
func addEnumerated(vs *variantSet, s *canon.Value) bool {
	if c := s.Get("const"); c != nil {
		vs.add(c.Clone())
		return true
	}
	e := s.Get("enum")
	if e == nil || e.Kind != canon.Array {
		return false
	}
	for _, it := range e.Items {
		vs.add(it.Clone())
	}
	return true
}

// annotatedVariants adds default, the examples, the minimal and rich
// instances and variants of each anyOf/oneOf branch.
func (g *Gen) annotatedVariants(vs *variantSet, s *canon.Value, rich *Gen) {
	if d := s.Get("default"); d != nil {
		vs.add(d.Clone())
	}
	if ex := s.Get("examples"); ex != nil && ex.Kind == canon.Array {
		for _, it := range ex.Items {
			vs.add(it.Clone())
		}
	}
	vs.add(g.Value(s), rich.Value(s))
	if g.depth >= maxGenDepth {
		return
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if a := s.Get(kw); a != nil && a.Kind == canon.Array {
			for i := range a.Items {
				vs.add(g.Variants(g.conj(s, kw, &a.Items[i]), 4)...)
			}
		}
	}
}

// numberVariants adds null, the booleans and the boundary numbers of the
// types t allows.
func (g *Gen) numberVariants(vs *variantSet, s *canon.Value, t Types) {
	if t&Null != 0 {
		vs.add(canon.NullValue())
	}
	if t&Bool != 0 {
		vs.add(canon.BoolValue(false), canon.BoolValue(true))
	}
	if t&Integer != 0 {
		for _, r := range g.numberCandidates(s, t&Number == Integer) {
			if r.IsInt() {
				vs.add(canon.NumberValue(RatText(r)))
			}
		}
		vs.add(canon.NumberValue("1000000"))
	}
	if t&Fraction != 0 {
		for _, r := range g.numberCandidates(s, false) {
			if !r.IsInt() {
				vs.add(canon.NumberValue(RatText(r)))
			}
		}
	}
}

// stringVariants adds strings of the bound lengths, samples of the pattern
// and a few common shapes.
func stringVariants(vs *variantSet, s *canon.Value) {
	minL, _ := IntOf(s.Get("minLength"))
	maxL, hasMax := IntOf(s.Get("maxLength"))
	vs.add(canon.StringValue(strings.Repeat("x", int(min(minL, 4096)))))
	if hasMax {
		vs.add(canon.StringValue(strings.Repeat("x", int(min(maxL, 4096)))))
	}
	if p := s.Get("pattern"); p != nil && p.Kind == canon.String {
		xs := RegexSamples(p.Str, 4, nil)
		for _, x := range xs {
			vs.add(canon.StringValue(x))
		}
		// A pattern that is not anchored at the end also matches
		// longer strings (kept only when the pattern still matches).
		for _, x := range xs {
			vs.add(canon.StringValue(x + "x"))
		}
	}
	for _, x := range []string{"x", "", "X", "0", "x y", "-", "https://example.com/", "2024-01-01"} {
		vs.add(canon.StringValue(x))
	}
}

// arrayVariants adds the empty array and, below the nesting bound,
// one-element arrays of item variants,
// repeated elements (uniqueItems) and arrays at the contains and maxItems
// bounds.
func (g *Gen) arrayVariants(vs *variantSet, s *canon.Value, rich *Gen) {
	// Without "items" any element goes: simple values still give
	// one-element arrays and two equal elements (uniqueItems).
	items := s.Get("items")
	if items == nil {
		t := canon.BoolValue(true) // any element
		items = &t
	}
	vs.add(canon.ArrayValue())
	if g.depth >= maxGenDepth {
		return
	}
	iv := g.Variants(items, 4)
	for _, v := range iv {
		vs.add(canon.ArrayValue(v))
	}
	if len(iv) > 0 {
		vs.add(canon.ArrayValue(iv[0], iv[0]))
	}
	// The minimal and rich instances with their first element repeated
	// (equal elements, past prefixItems too).
	for _, a := range []canon.Value{g.Value(s), rich.Value(s)} {
		if a.Kind == canon.Array && len(a.Items) > 0 {
			a.Items = append(a.Items, a.Items[0].Clone())
			vs.add(a)
		}
	}
	if cs := s.Get("contains"); cs != nil {
		// As many matching items as the contains bounds allow.
		cv := g.Variants(cs, 2)
		for _, kw := range []string{"minContains", "maxContains"} {
			if n, ok := IntOf(s.Get(kw)); ok && n <= 64 && len(cv) > 0 {
				vs.add(repeated(cv[:1], n))
			}
		}
	}
	if maxI, ok := IntOf(s.Get("maxItems")); ok && maxI <= 64 && len(iv) > 0 {
		vs.add(repeated(iv, maxI))
	}
}

// repeated is an array of n items taken from vals in turn.
func repeated(vals []canon.Value, n int64) canon.Value {
	a := canon.ArrayValue()
	for i := int64(0); i < n; i++ {
		a.Items = append(a.Items, vals[int(i)%len(vals)])
	}
	return a
}

// objectVariants adds the empty object, the minimal and rich instances with
// one property varied at a time, and an object at maxProperties.
func (g *Gen) objectVariants(vs *variantSet, s *canon.Value, rich *Gen) {
	vs.add(canon.ObjectValue())
	if props := s.Get("properties"); props != nil && props.Kind == canon.Object && g.depth < maxGenDepth {
		for _, base := range []canon.Value{g.Value(s), rich.Value(s)} {
			if base.Kind != canon.Object {
				continue
			}
			for _, m := range props.Members {
				for _, v := range g.Variants(&m.Value, 4) {
					o := base.Clone()
					o.Set(m.Key, v)
					vs.add(o)
				}
			}
		}
	}
	if maxP, ok := IntOf(s.Get("maxProperties")); ok && maxP <= 64 {
		// As many properties as allowed: declared ones first.
		o := rich.Value(s)
		if o.Kind == canon.Object {
			for i := 0; int64(len(o.Members)) < maxP && i < 64; i++ {
				k := "p" + strconv.Itoa(i)
				if !o.Has(k) {
					o.Set(k, g.Value(PropSchema(s, k)))
				}
			}
			vs.add(o)
		}
	}
}
