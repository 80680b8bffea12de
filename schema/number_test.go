package schema

import (
	"errors"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpctl/mcpctl/canon"
)

// hugeNumbers are the reproductions: valid JSON numbers whose
// decimal exponent math/big.Rat cannot hold, which made jsonschema v6 panic
// with (*big.Rat).Cmp(nil).
var hugeNumbers = []string{"1e1000000000", "-1e1000000000", "1e-1000000000", "1E+999999999999"}

func mustCompile(t *testing.T, text string) *Compiled {
	t.Helper()
	v, err := canon.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(&v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHardening01HugeNumberValidates: {"a":1e1000000000} against minimum,
// maximum, exclusiveMaximum, multipleOf (and uniqueItems, which hashes
// numbers) is a located validation error, not a panic.
func TestHardening01HugeNumberValidates(t *testing.T) {
	t.Parallel()
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"number","minimum":0}}}`,
		`{"type":"object","properties":{"a":{"maximum":10}}}`,
		`{"type":"object","properties":{"a":{"exclusiveMaximum":10}}}`,
		`{"type":"object","properties":{"a":{"multipleOf":3}}}`,
		`{"type":"object","properties":{"a":{"enum":[1,2]}}}`,
		`{"type":"object","properties":{"l":{"uniqueItems":true}}}`,
	}
	for _, s := range schemas {
		c := mustCompile(t, s)
		for _, n := range hugeNumbers {
			inst, err := Decode([]byte(`{"a":` + n + `,"l":[` + n + `,1]}`))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate(inst)
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%s with %s: got %v, want a *jsonschema.ValidationError", s, n, err)
			}
			var got []string
			for _, cause := range ve.Causes {
				if _, ok := cause.ErrorKind.(*UnrepresentableNumber); ok {
					got = append(got, Pointer(cause.InstanceLocation))
				}
			}
			if d := cmp.Diff([]string{"/a", "/l/0"}, got); d != "" {
				t.Errorf("%s with %s: mismatch (-want +got):\n%s", s, n, d)
			}
			if c.Valid(inst) {
				t.Errorf("%s with %s: Valid", s, n)
			}
		}
	}
}

// TestHardening01HugeNumberCompiles: such a number in the schema itself
// (multipleOf made the metaschema check panic; minimum was silently
// ignored) is a located compile error.
func TestHardening01HugeNumberCompiles(t *testing.T) {
	t.Parallel()
	for _, kw := range []string{"minimum", "maximum", "exclusiveMaximum", "multipleOf"} {
		for _, n := range hugeNumbers {
			v, err := canon.Parse([]byte(`{"type":"object","properties":{"a":{"` + kw + `":` + n + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Compile(&v)
			var ce *CompileError
			if !errors.As(err, &ce) || ce.Pointer != "/properties/a/"+kw {
				t.Errorf("%s %s: got %v, want a *CompileError at /properties/a/%s", kw, n, err, kw)
			}
		}
	}
}

// TestRepresentable: every number Representable accepts, math/big.Rat
// (which jsonschema v6 uses) reads; those it refuses include every one
// big.Rat cannot read.
func TestRepresentable(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"0": true, "-0": true, "0e1000000000": true, "0e-999999999999999": true,
		"1e10000": true, "1e-10000": true, "1e10001": false, "1.5e10000": true,
		"1.05e10000": true, "0.1e-9999": true, "0.01e-9999": false,
		"123456789012345678901234567890": true, "1e1000001": false,
		"1E+999999999999": false, "-1e1000000000": false, "1e-1000000000": false,
		"1e+00000000000000000000000000001": true, "0.000e-99999999999999999999": false,
	}
	for num, want := range tests {
		if got := Representable(num); got != want {
			t.Errorf("Representable(%s) = %v, want %v", num, got, want)
		}
		if _, ok := new(big.Rat).SetString(num); want && !ok {
			t.Errorf("big.Rat cannot read %s, which Representable accepts", num)
		}
	}
	for _, num := range hugeNumbers {
		if _, ok := new(big.Rat).SetString(num); ok {
			t.Errorf("big.Rat reads %s: the reproduction no longer reproduces", num)
		}
	}
}
