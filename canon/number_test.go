package canon

import "testing"

// TestIsNumber: IsNumber accepts exactly the texts Parse reads as one
// number. It replaced facade.IsJSONNumber and serve's number regexp, two
// more copies of the grammar.
func TestIsNumber(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "-0", "1", "-12", "1.5", "0.0", "1e5", "1E+5", "-1.25e-7", "10000000000000000000000",
		"", "-", "01", "-01", "1.", ".5", "+1", "1e", "1e+", "0x1f", "1_000", " 1", "1 ", "NaN", "Infinity", "1.5.2", "--1",
	} {
		v, err := Parse([]byte(s))
		want := err == nil && v.Kind == Number && v.Str == s
		if got := IsNumber(s); got != want {
			t.Errorf("IsNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
