package canon

import "testing"

// TestNearest: a pointer names its value, or the deepest value on its way
// (what lint positions fall back to).
func TestNearest(t *testing.T) {
	t.Parallel()
	data := []byte(`{"a":{"b/c":[10,{"~d":true}]},"":1}`)
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ptr, want string }{
		{"", string(data)},
		{"/a", `{"b/c":[10,{"~d":true}]}`},
		{"/a/b~1c/0", "10"},
		{"/a/b~1c/1/~0d", "true"},
		{"/a/b~1c/2", `[10,{"~d":true}]`},
		{"/a/b~1c/01", `[10,{"~d":true}]`},
		{"/a/missing/deeper", `{"b/c":[10,{"~d":true}]}`},
		{"/", "1"},
		{"nope", string(data)},
	} {
		n := v.Nearest(tc.ptr)
		if got := string(data[n.Start:n.End]); got != tc.want {
			t.Errorf("Nearest(%q) = %s, want %s", tc.ptr, got, tc.want)
		}
	}
}
