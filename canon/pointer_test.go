package canon

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPointerTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ptr  string
		want []string
		bad  bool
	}{
		{"", nil, false},
		{"/", []string{""}, false},
		{"/a~1b/c~0d/~01", []string{"a/b", "c~d", "~1"}, false},
		{"a", nil, true},
		{"/a~2", nil, true},
		{"/a~", nil, true},
	} {
		got, err := PointerTokens(tc.ptr)
		if tc.bad != errors.Is(err, ErrPointer) || (err != nil && !tc.bad) {
			t.Errorf("%q: error %v, want bad=%v", tc.ptr, err, tc.bad)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%q: (-want +got):\n%s", tc.ptr, d)
		}
		for _, tok := range got {
			if back := UnescapePointer(EscapePointer(tok)); back != tok {
				t.Errorf("%q: escaping round trip gave %q", tok, back)
			}
		}
	}
}

func TestArrayIndexAndAt(t *testing.T) {
	t.Parallel()
	for tok, want := range map[string]int{"0": 0, "12": 12, "01": -1, "": -1, "-1": -1, "+1": -1, "1e2": -1, "9999999999": -1} {
		if i, ok := ArrayIndex(tok); (ok && i != want) || ok != (want >= 0) {
			t.Errorf("ArrayIndex(%q) = %d, %v; want %d", tok, i, ok, want)
		}
	}
	v, err := Parse([]byte(`{"a/b":[10,{"~":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]string{"": `{"a/b":[10,{"~":true}]}`, "/a~1b/1/~0": "true", "/a~1b/0": "10", "/a~1b/01": "", "/a~1b/2": "", "/x": "", "x": ""} {
		got := ""
		if at := v.At(ptr); at != nil {
			got = string(AppendJCS(nil, at))
		}
		if got != want {
			t.Errorf("At(%q) = %s, want %s", ptr, got, want)
		}
	}
}
