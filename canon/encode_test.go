package canon_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

// jcs parses src strictly and returns its RFC 8785 canonical form.
func jcs(t *testing.T, src string) string {
	t.Helper()
	v, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return string(canon.AppendJCS(nil, &v))
}

// TestAppendFloatRFC8785AppendixB checks the number serialization samples of
// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
func TestAppendFloatRFC8785AppendixB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"}, // minus zero
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatUint(tt.bits, 16), func(t *testing.T) {
			f := math.Float64frombits(tt.bits)
			if got := string(canon.AppendFloat(nil, f)); got != tt.want {
				t.Errorf("AppendFloat(%x) = %q, want %q", tt.bits, got, tt.want)
			}
			// The same double written as Go's shortest 'g' text must reach
			// the same canonical form through AppendNumber.
			text := strconv.FormatFloat(f, 'g', -1, 64)
			if got := string(canon.AppendNumber(nil, text)); got != tt.want {
				t.Errorf("AppendNumber(%q) = %q, want %q", text, got, tt.want)
			}
		})
	}
}

// TestAppendNumber covers the ECMAScript Number.prototype.toString corner
// cases RFC 8785 §3.2.2.3 relies on, different spellings of one number, and
// the documented deviation for integer literals beyond 2^53.
func TestAppendNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		// Spellings of one value.
		{"1", "1"},
		{"1.0", "1"},
		{"1e0", "1"},
		{"1E0", "1"},
		{"10e-1", "1"},
		{"0.1e1", "1"},
		{"1e2", "100"},
		{"1E+2", "100"},
		{"100.000", "100"},
		{"4.50", "4.5"},
		{"2e-3", "0.002"},
		{"-0", "0"},
		{"-0.0", "0"},
		{"-0e10", "0"},
		{"0.0", "0"},
		{"-1.5", "-1.5"},
		// ES6 layout switches.
		{"1e21", "1e+21"},
		{"1e20", "100000000000000000000"},
		{"123e18", "123000000000000000000"},
		{"1e-7", "1e-7"},
		{"0.000001", "0.000001"},
		{"0.0000001", "1e-7"},
		{"1.5e-7", "1.5e-7"},
		{"1e30", "1e+30"},
		{"1E30", "1e+30"},
		{"0.000000000000000000000000001", "1e-27"},
		{"333333333.33333329", "333333333.3333333"},
		{"5e-324", "5e-324"},
		{"4.9406564584124654e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"-1.7976931348623157e308", "-1.7976931348623157e+308"},
		{"0.1", "0.1"},
		{"0.30000000000000004", "0.30000000000000004"},
		{"1e-400", "0"}, // underflows to the double 0
		// Integers up to 2^53 are exact doubles and print as themselves.
		{"9007199254740991", "9007199254740991"},
		{"9007199254740992", "9007199254740992"},
		{"-9007199254740992", "-9007199254740992"},
		{"9007199254740992.0", "9007199254740992"},
		{"900719925474099e1", "9007199254740990"},
		{"123456789012345", "123456789012345"},
		// Deviation: integer literals beyond 2^53 keep their exact digits
		// (JCS would round 9007199254740993 to 9007199254740992).
		{"9007199254740993", "9007199254740993"},
		{"-9007199254740993", "-9007199254740993"},
		{"9007199254740994", "9007199254740994"},
		{"12345678901234567890", "12345678901234567890"},
		{"18446744073709551616", "18446744073709551616"},
		{"1000000000000000000000", "1000000000000000000000"}, // JCS: 1e+21
		// Non-integer literals beyond 2^53 are doubles, as JCS says.
		{"9007199254740993.0", "9007199254740992"},
		{"9007199254740993e0", "9007199254740992"},
		// Beyond the double range: one exact normalized text per value
		// (JCS has no form for them; they are not rounded to Infinity).
		{"1e400", "1e+400"},
		{"1E400", "1e+400"},
		{"1e+400", "1e+400"},
		{"10e399", "1e+400"},
		{"0.1e401", "1e+400"},
		{"1.50e400", "1.5e+400"},
		{"-2.5E+999", "-2.5e+999"},
		{"1e99999999999999999999", "1e+99999999999999999999"},
	}
	for _, tt := range tests {
		if got := string(canon.AppendNumber(nil, tt.in)); got != tt.want {
			t.Errorf("AppendNumber(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The canonical text is a fixed point.
		if got := string(canon.AppendNumber(nil, tt.want)); got != tt.want {
			t.Errorf("AppendNumber(%q) = %q, not a fixed point", tt.want, got)
		}
	}
}

// TestAppendNumberIntegersNear2p53 sweeps the integers around 2^53, where a
// rounding shortcut would make two different identifiers equal.
func TestAppendNumberIntegersNear2p53(t *testing.T) {
	t.Parallel()
	const p53 = int64(1) << 53
	for d := int64(-50); d <= 50; d++ {
		for _, n := range []int64{p53 + d, -(p53 + d)} {
			s := strconv.FormatInt(n, 10)
			if got := string(canon.AppendNumber(nil, s)); got != s {
				t.Errorf("AppendNumber(%q) = %q, want it unchanged", s, got)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "abc", `"abc"`},
		{"empty", "", `""`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short forms", "\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"other controls lower-case hex", "\x00\x01\x0b\x0e\x1f", `"\u0000\u0001\u000b\u000e\u001f"`},
		{"DEL literal", "\x7f", "\"\x7f\""},
		{"slash not escaped", "a/b", `"a/b"`},
		{"U+2028 and U+2029 literal", "\u2028\u2029", "\"\u2028\u2029\""},
		{"non-ASCII literal", "€ö😀\u0080", "\"€ö😀\u0080\""},
		{"U+FFFD literal", "\uFFFD", "\"\uFFFD\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(canon.AppendString(nil, tt.in)); got != tt.want {
				t.Errorf("AppendString(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestJCSRFC8785Examples checks the worked examples of RFC 8785: §3.2.2.2
// (strings), §3.2.3 (sorting by UTF-16 code units) and §3.2.4 (the whole
// canonicalization).
func TestJCSRFC8785Examples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{
			name: "3.2.2.2 string",
			in:   `"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"`,
			want: "\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"",
		},
		{
			name: "3.2.3 sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			name: "3.2.4 whole",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}",
		},
		{
			name: "nested objects sorted, arrays kept",
			in:   `{"b":[3,1,2],"a":{"z":null,"y":{"d":1,"c":2}}}`,
			want: `{"a":{"y":{"c":2,"d":1},"z":null},"b":[3,1,2]}`,
		},
		{
			name: "no set sorting outside schemas",
			in:   `{"required":["b","a"],"type":["string","null"],"enum":[2,1]}`,
			want: `{"enum":[2,1],"required":["b","a"],"type":["string","null"]}`,
		},
		{
			name: "whitespace dropped",
			in:   " \t\r\n[ 1 , { \"a\" : true } ] \n",
			want: `[1,{"a":true}]`,
		},
		{
			name: "empty containers",
			in:   `{"a":{},"b":[]}`,
			want: `{"a":{},"b":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jcs(t, tt.in); got != tt.want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(tt.want, got))
			}
		})
	}
}

// TestCompareKeysUTF16 checks the order of RFC 8785 §3.2.3 pairwise, in
// particular where UTF-8 byte order and UTF-16 code unit order disagree
// (U+E000–U+FFFF against supplementary characters).
func TestCompareKeysUTF16(t *testing.T) {
	t.Parallel()
	// In UTF-16 code unit order.
	ordered := []string{"", "\r", "1", "10", "2", "A", "a", "\u007f", "\u0080", "ö", "\u07ff", "\u0800", "€", "\ud7ff", "😀", "😁", "\U0010FFFF", "\ue000", "\ufb33", "\uffff"}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := canon.CompareKeys(a, b); got != want {
				t.Errorf("CompareKeys(%+q, %+q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestCompareKeysMatchesUTF16 compares CompareKeys with a reference (encode
// both keys to UTF-16, compare code units) on random keys drawn from the
// ranges where UTF-8 and UTF-16 orders differ.
func TestCompareKeysMatchesUTF16(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	ranges := [][2]rune{{0, 0x7f}, {0x80, 0x7ff}, {0x800, 0xd7ff}, {0xe000, 0xffff}, {0x10000, 0x10ffff}}
	key := func() string {
		rs := make([]rune, r.IntN(4))
		for i := range rs {
			rg := ranges[r.IntN(len(ranges))]
			rs[i] = rg[0] + r.Int32N(rg[1]-rg[0]+1)
			if r.IntN(3) == 0 {
				rs[i] = rg[0] // boundaries collide more often
			}
		}
		return string(rs)
	}
	for range 20000 {
		a, b := key(), key()
		if r.IntN(4) == 0 {
			b = a + b // shared prefixes
		}
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		if got := canon.CompareKeys(a, b); got != want {
			t.Fatalf("CompareKeys(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	}
}
