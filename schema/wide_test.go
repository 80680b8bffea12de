package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestCompileWide is issue 9 item 12 (one change in an object with 5,000
// properties took 1.78 s, 16,000 took 13 s): a document with wide property
// maps is compiled in parts (compileSplit), and the parts validator must
// judge every instance as the whole-document validator does, with the
// same error leaves, in both drafts. (The wide map under "c" is not split:
// additionalProperties depends on it.)
func TestCompileWide(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"", `"$schema":"http://json-schema.org/draft-07/schema#",`} {
		var b strings.Builder
		fmt.Fprintf(&b, `{%s"type":"object","required":["p1"],"allOf":[{"required":["p2"]}],"properties":{`, dialect)
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, `"p%d":{"type":"string","maxLength":%d},`, i, i+1)
		}
		b.WriteString(`"r":{"$ref":"#/$defs/d"},"n":{"type":"object","properties":{"x":{"type":"integer"}}},"c":{"additionalProperties":false,"properties":{`)
		for i := 0; i < 70; i++ {
			fmt.Fprintf(&b, `"q%d":{"type":"integer","maximum":%d},`, i, i)
		}
		b.WriteString(`"q":{}}}},"$defs":{"d":{"maxLength":4}}}`)
		var doc any
		if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
			t.Fatal(err)
		}
		split, ok := compileSplit(doc)
		if !ok {
			t.Fatal("compileSplit did not split a 102-property schema")
		}
		whole := compileWhole(t, doc)
		for _, inst := range []string{`{"p1":"a","p2":""}`, `{"p1":"ab","p2":""}`, `{}`, `{"p1":"a"}`, `{"p1":"a","p2":"","p5":"aaaaaa"}`,
			`{"p1":"a","p2":"","r":"aaaaa"}`, `{"p1":"a","p2":"","zz":1}`, `{"p1":"a","p2":"","n":{"x":1.5}}`, `{"p1":1,"p2":""}`,
			`{"p1":"a","p2":"","c":{"q3":3,"q":1}}`, `{"p1":"a","p2":"","c":{"q3":4}}`, `{"p1":"a","p2":"","c":{"zz":4}}`} {
			var v any
			if err := json.Unmarshal([]byte(inst), &v); err != nil {
				t.Fatal(err)
			}
			we, se := whole.Validate(v), split.Validate(v)
			if (we == nil) != (se == nil) {
				t.Errorf("%s %s: whole says %v, parts say %v", dialect, inst, we, se)
				continue
			}
			if we != nil {
				wl, wr := deepestLeaves(asValidation(t, we))
				sl, sr := deepestLeaves(asValidation(t, se))
				if Pointer(wl) != Pointer(sl) || strings.Join(wr, ";") != strings.Join(sr, ";") {
					t.Errorf("%s %s: leaves differ: whole %s %v, parts %s %v", dialect, inst, Pointer(wl), wr, Pointer(sl), sr)
				}
			}
		}
	}
}

// compileWhole compiles doc in one piece, as CompileAny did before parts.
func compileWhole(t *testing.T, doc any) *Compiled {
	t.Helper()
	c := newCompiler()
	if err := c.AddResource(resourceURL, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		t.Fatal(err)
	}
	return &Compiled{s: s}
}

func asValidation(t *testing.T, err error) *jsonschema.ValidationError {
	t.Helper()
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%v is not a *jsonschema.ValidationError", err)
	}
	return ve
}

// TestCompileDeep is issue 9 item 11 (a schema nested 200 levels deep took
// 7.2 s): a deep document is compiled in parts cut every cutDepth levels,
// and the parts validator judges instances at every depth as the
// whole-document validator does, in both drafts.
func TestCompileDeep(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{"", `"$schema":"http://json-schema.org/draft-07/schema#",`} {
		const depth = 100
		doc := decodeJSON(t, "{"+dialect+`"type":"object","properties":{"a":`+
			strings.Repeat(`{"type":"object","required":["b"],"properties":{"n":{"maximum":3},"a":`, depth)+
			`{"type":"array","items":{"type":"string","maxLength":2}}`+strings.Repeat(`}}`, depth)+`}}`)
		split, ok := compileSplit(doc)
		if !ok {
			t.Fatal("compileSplit did not split a 100-level schema")
		}
		whole := compileWhole(t, doc)
		for _, at := range []int{0, 1, cutDepth - 1, cutDepth, cutDepth + 1, 2 * cutDepth, depth - 1} {
			for _, leaf := range []string{`"n":2`, `"n":4`, `"a":["ab"]`, `"a":["abc"]`, `"x":1`} {
				inst := `{"a":` + strings.Repeat(`{"b":1,"a":`, at) + `{"b":1,` + leaf + `}` + strings.Repeat(`}`, at) + `}`
				sameVerdict(t, whole, split, decodeJSON(t, inst))
			}
		}
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// sameVerdict fails unless both validators accept v, or both reject it
// with the same deepest error leaves.
func sameVerdict(t *testing.T, whole, split *Compiled, v any) {
	t.Helper()
	we, se := whole.Validate(v), split.Validate(v)
	if (we == nil) != (se == nil) {
		t.Errorf("%v: whole says %v, parts say %v", v, we, se)
		return
	}
	if we != nil {
		wl, wr := deepestLeaves(asValidation(t, we))
		sl, sr := deepestLeaves(asValidation(t, se))
		if Pointer(wl) != Pointer(sl) || strings.Join(wr, ";") != strings.Join(sr, ";") {
			t.Errorf("%v: leaves differ: whole %s %v, parts %s %v", v, Pointer(wl), wr, Pointer(sl), sr)
		}
	}
}
