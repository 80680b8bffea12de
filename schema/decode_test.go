package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

var decodeSeeds = []string{
	`{"tool":"a","arguments":{"x":[1,2.5e3,-0,"s\n\"\u00e9",true,null,{}]}}`,
	`{"a":1,"a":2}`, `"\ud83d\ude00"`, `"\udc00"`, "\"\xff\"", `[1,]`, `{"a" :1 , "b":[ ]}`,
	`01`, `1.`, `-`, `1e`, `tru`, "{\"a\":\"\t\"}", ` 7 `, `{}x`, `"\/"`, "\ufeff{}", `{"a":{"a":1,"b":2,"a":3}}`,
	strings.Repeat("[", canon.MaxDepth+1) + strings.Repeat("]", canon.MaxDepth+1),
}

// FuzzCanonDecode: canon.Decode accepts exactly what canon.Parse accepts, gives
// the value Instance gives Parse's tree, and refuses with Parse's error.
// It replaced fixtures' own JSON decoder (fastjson.go), which accepted a
// subset and fell back to canon.Parse for the rest.
func FuzzCanonDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, data) })
}

func TestDecodeSeeds(t *testing.T) {
	t.Parallel()
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := canon.Decode(data)
	v, perr := canon.Parse(data)
	if perr != nil || gerr != nil {
		var gse, pse *canon.SyntaxError
		if !errors.As(gerr, &gse) || !errors.As(perr, &pse) || *gse != *pse {
			t.Fatalf("%q: Decode error %v, Parse error %v", data, gerr, perr)
		}
		return
	}
	// reflect.DeepEqual first: cmp.Diff takes minutes on deep nesting.
	if want := Instance(&v); !reflect.DeepEqual(want, got) {
		t.Fatalf("%q: mismatch (-want +got):\n%s", data, cmp.Diff(want, got))
	}
}

// TestDecodeSpan: the byte range of a top-level member's value.
func TestDecodeSpan(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		`{"tool":"a","arguments":{"z":1.0, "a":[ ]}}`: `{"z":1.0, "a":[ ]}`,
		`{"arguments" : [1] , "x":{"arguments":2}}`:   `[1]`,
		`{"tool":"a","x":{"arguments":2}}`:            ``,
		`["arguments",1]`:                             ``,
	} {
		_, span, err := canon.DecodeSpan([]byte(data), "arguments")
		if err != nil {
			t.Fatal(err)
		}
		if got := data[span[0]:span[1]]; got != want {
			t.Errorf("%s: span %v = %q, want %q", data, span, got, want)
		}
	}
}
