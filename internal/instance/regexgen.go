package instance

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode"
)

// RegexSamples returns up to n distinct strings that match the JSON Schema
// pattern p (read with Go's RE2 syntax, as the validator does), built from
// the parsed expression: the first alternative and the fewest repetitions
// first, then other choices. rng, when set, makes the choices random.
// Patterns are unanchored, so a string matching the whole expression also
// matches the pattern; every result is checked against the pattern.
func RegexSamples(p string, n int, rng *rand.Rand) []string {
	re := CompileRegexp(p)
	if re == nil {
		return nil
	}
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	parsed = parsed.Simplify()
	var out []string
	seen := map[string]bool{}
	for seed := 0; seed < 4*n && len(out) < n; seed++ {
		g := regexGen{seed: seed, rng: rng}
		var b strings.Builder
		if !g.write(&b, parsed, 0) {
			continue
		}
		s := b.String()
		if seen[s] || !re.MatchString(s) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

type regexGen struct {
	seed int
	rng  *rand.Rand
}

func (g *regexGen) choose(n int) int {
	if n <= 1 {
		return 0
	}
	if g.rng != nil {
		return g.rng.IntN(n)
	}
	return g.seed % n
}

func (g *regexGen) write(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 64 || b.Len() > 512 {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := g.classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("xa0"[g.choose(3)])
	case syntax.OpCapture:
		return g.write(b, re.Sub[0], depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !g.write(b, s, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return g.write(b, re.Sub[g.choose(len(re.Sub))], depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 1
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 2
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 1
			}
		}
		count := lo
		if hi > lo && (g.seed/2)%2 == 1 {
			count = lo + 1
		}
		if g.rng != nil && hi > lo {
			count = lo + g.rng.IntN(min(hi-lo, 3)+1)
		}
		if count > 64 {
			count = 64
		}
		for i := 0; i < count; i++ {
			if !g.write(b, re.Sub[0], depth+1) {
				return false
			}
		}
	default:
		// Anchors, word boundaries, empty matches: nothing to write.
	}
	return true
}

// classRune picks a rune from a class given as [lo, hi] pairs, preferring
// readable ones.
func (g *regexGen) classRune(ranges []rune) (rune, bool) {
	if len(ranges) == 0 {
		return 0, false
	}
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	prefs := []rune{'a', 'x', '0', 'A', '_', '-', '.'}
	if g.rng != nil {
		i := g.rng.IntN(len(ranges) / 2)
		lo, hi := ranges[2*i], ranges[2*i+1]
		if hi-lo > 64 {
			hi = lo + 64
		}
		return lo + rune(g.rng.IntN(int(hi-lo)+1)), true
	}
	start := g.seed % len(prefs)
	for i := range prefs {
		if r := prefs[(start+i)%len(prefs)]; in(r) {
			return r, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+128; r++ {
			if unicode.IsPrint(r) {
				return r, true
			}
		}
	}
	return ranges[0], true
}
