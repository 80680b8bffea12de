package canon_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
)

// shuffleMembers permutes the members of every object in v, recursively.
func shuffleMembers(v *canon.Value, r *rand.Rand) {
	r.Shuffle(len(v.Members), func(i, j int) { v.Members[i], v.Members[j] = v.Members[j], v.Members[i] })
	for i := range v.Members {
		shuffleMembers(&v.Members[i].Value, r)
	}
	for i := range v.Items {
		shuffleMembers(&v.Items[i], r)
	}
}

// shuffleSets permutes the required, type and enum arrays of schema and of
// every subschema WalkSchemas reaches: docs/canon.md#schema-aware-set-sorting says they are sets there.
func shuffleSets(schema *canon.Value, r *rand.Rand) {
	canon.WalkSchemas(schema, func(s *canon.Value, _ string) {
		for _, k := range []string{"required", "type", "enum"} {
			if a := s.Get(k); a != nil && a.Kind == canon.Array {
				r.Shuffle(len(a.Items), func(i, j int) { a.Items[i], a.Items[j] = a.Items[j], a.Items[i] })
			}
		}
	})
}

// toolList returns the tools of a discovery document ({"tools":[…]} or a
// bare array) when their names are unique, else nil.
func toolList(root *canon.Value) []*canon.Value {
	list := root
	if root.Kind == canon.Object {
		list = root.Get("tools")
	}
	if list == nil || list.Kind != canon.Array {
		return nil
	}
	seen := map[string]bool{}
	tools := make([]*canon.Value, len(list.Items))
	for i := range list.Items {
		name := canon.ToolName(&list.Items[i])
		if seen[name] {
			return nil
		}
		seen[name] = true
		tools[i] = &list.Items[i]
	}
	return tools
}

// canonForms returns the three canonical encodings of v: plain JCS, as a
// tool, and as a schema.
func canonForms(v *canon.Value) [3][]byte {
	return [3][]byte{canon.AppendJCS(nil, v), canon.AppendTool(nil, v), canon.AppendSchema(nil, v)}
}

var formNames = [3]string{"AppendJCS", "AppendTool", "AppendSchema"}

func reencode(form int, data []byte) ([]byte, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, err
	}
	return canonForms(&v)[form], nil
}

// checkNumbers checks every number of v against its canonical text: an
// integer literal or a number beyond the double range keeps its exact value
// (the documented deviation of AppendNumber), any other number becomes the
// same double.
func checkNumbers(t *testing.T, v *canon.Value) {
	t.Helper()
	switch v.Kind {
	case canon.Number:
		out := string(canon.AppendNumber(nil, v.Str))
		in := v.Str
		f, err := strconv.ParseFloat(in, 64)
		exact := err != nil || !strings.ContainsAny(in, ".eE")
		if !exact {
			g, err := strconv.ParseFloat(out, 64)
			if err != nil || g != f {
				t.Fatalf("number %s became %s, another double", in, out)
			}
			return
		}
		// Compare exact values; skip exponents too large for big.Rat.
		if _, e, ok := strings.Cut(strings.ToLower(in), "e"); ok && len(e) > 5 {
			return
		}
		var a, b big.Rat
		if _, ok := a.SetString(in); !ok {
			t.Fatalf("big.Rat cannot read %s", in)
		}
		if _, ok := b.SetString(out); !ok || a.Cmp(&b) != 0 {
			t.Fatalf("number %s became %s, not the same exact value", in, out)
		}
	case canon.Array:
		for i := range v.Items {
			checkNumbers(t, &v.Items[i])
		}
	case canon.Object:
		for i := range v.Members {
			checkNumbers(t, &v.Members[i].Value)
		}
	}
}

// respellNumbers rewrites every number with a fraction or an exponent into
// another spelling of the same value: one more trailing zero in the
// fraction, and the other case of "e". Integer literals have one spelling.
func respellNumbers(v *canon.Value) {
	switch v.Kind {
	case canon.Number:
		mant, exp, hasExp := strings.Cut(v.Str, "e")
		if !hasExp {
			mant, exp, hasExp = strings.Cut(v.Str, "E")
		}
		switch {
		case strings.Contains(mant, "."):
			mant += "0"
		case hasExp:
			mant += ".0"
		default:
			return
		}
		if hasExp {
			e := "E"
			if strings.Contains(v.Str, "E") {
				e = "e"
			}
			mant += e + exp
		}
		v.Str = mant
	case canon.Array:
		for i := range v.Items {
			respellNumbers(&v.Items[i])
		}
	case canon.Object:
		for i := range v.Members {
			respellNumbers(&v.Members[i].Value)
		}
	}
}

// addSeeds adds the canon cases of testdata/cases and a few real tools.
func addSeeds(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[true,null,"x"]}`), uint64(1))
	f.Add([]byte(`{"type":["string","null"],"enum":[2,1,{"b":1,"a":0}],"required":["y","x"],"properties":{"required":{"enum":["b","a"]}},"default":{"required":["b","a"]}}`), uint64(2))
	f.Add([]byte(`[1e400,9007199254740993,-0,1E21,0.000001,"\u2028\u001f\ud83d\ude00"]`), uint64(3))
	f.Add([]byte(`{"tools":[{"name":"b","inputSchema":{"definitions":{"a":{"const":1}},"items":[{"$ref":"#/definitions/a"}]},"annotations":{"readOnlyHint":false}},{"name":"a"}]}`), uint64(4))
	if data, err := os.ReadFile("../testdata/cases/cases.json"); err == nil {
		root, err := canon.Parse(data)
		if err != nil {
			f.Fatal(err)
		}
		for i, c := range root.Items {
			if k := c.Get("kind"); k == nil || k.Str != "canon" {
				continue
			}
			for _, side := range []string{"a", "b"} {
				if d := c.Get(side); d != nil {
					f.Add(bytes.Clone(data[d.Start:d.End]), uint64(i))
				}
			}
		}
	}
	for _, file := range []string{"github-mcp-server/v0.24.0.json", "server-filesystem/2026.7.10.json"} {
		data, err := os.ReadFile(filepath.Join("../testdata/realdata", file))
		if err != nil {
			f.Fatal(err)
		}
		root, err := canon.Parse(data)
		if err != nil {
			f.Fatal(err)
		}
		for i, t := range toolList(&root) {
			if i%7 == 0 {
				f.Add(bytes.Clone(data[t.Start:t.End]), uint64(i))
			}
		}
	}
}

// checkSkim checks DeeperThan and Skim on data, which Parse read as v:
// nothing is too deep, and Skim's top level is Parse's, a container
// below it an empty value of its kind over the same bytes.
func checkSkim(t *testing.T, data []byte, v *canon.Value) {
	if off := canon.DeeperThan(data, canon.MaxDepth); off >= 0 {
		t.Fatalf("DeeperThan found nesting at byte offset %d in what Parse accepted", off)
	}
	top, err := canon.Skim(data, 1)
	if err != nil {
		t.Fatalf("Skim refused what Parse accepted: %v", err)
	}
	if top.Kind != v.Kind || top.Start != v.Start || top.End != v.End || len(top.Members) != len(v.Members) || len(top.Items) != len(v.Items) {
		t.Fatalf("Skim's top level differs from Parse's: %+v", top)
	}
	kids := func(x *canon.Value) []*canon.Value {
		var out []*canon.Value
		for i := range x.Members {
			out = append(out, &x.Members[i].Value)
		}
		for i := range x.Items {
			out = append(out, &x.Items[i])
		}
		return out
	}
	want, got := kids(v), kids(&top)
	for i := range got {
		w, g := want[i], got[i]
		nested := w.Kind == canon.Object || w.Kind == canon.Array
		if g.Kind != w.Kind || g.Start != w.Start || g.End != w.End || (nested && (g.Members != nil || g.Items != nil)) || (!nested && g.Str != w.Str) {
			t.Fatalf("Skim's value %d differs from Parse's: %+v, want %+v", i, g, w)
		}
	}
}

// FuzzCanon checks the canonical form's defining properties on any input:
// Parse never panics and agrees with encoding/json on what is JSON; for input
// that parses, every canonical form is a fixed point (canon(canon(x)) ==
// canon(x)), means what x means, and does not change when object members are
// permuted, when required/type/enum sets are permuted in schema positions, or
// when the tools of a tool list are reordered.
func FuzzCanon(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		v, err := canon.Parse(data)
		if err != nil {
			var se *canon.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, canon.ErrSyntax) {
				t.Fatalf("Parse error %v is not a located *SyntaxError", err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("offset %d outside the input (%d bytes)", se.Offset, len(data))
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Parse accepted what encoding/json calls invalid: %q", data)
		}
		checkSkim(t, data, &v)
		forms := canonForms(&v)
		for i, c := range forms {
			again, err := reencode(i, c)
			if err != nil {
				t.Fatalf("%s output does not parse: %v\n%s", formNames[i], err, c)
			}
			if !bytes.Equal(again, c) {
				t.Fatalf("%s not idempotent:\n first %s\nsecond %s", formNames[i], c, again)
			}
		}
		checkNumbers(t, &v)
		// Another spelling of the same numbers gives the same form.
		re := v.Clone()
		respellNumbers(&re)
		if c := canon.AppendJCS(nil, &re); !bytes.Equal(c, forms[0]) {
			t.Fatalf("AppendJCS changed when numbers were respelled:\nwant %s\n got %s", forms[0], c)
		}
		// Same meaning as the input, as encoding/json reads both (numbers as
		// float64; the input may still be out of float64 range).
		var a, b any
		if json.Unmarshal(data, &a) == nil {
			if err := json.Unmarshal(forms[0], &b); err != nil {
				t.Fatalf("encoding/json rejects the canonical form: %v\n%s", err, forms[0])
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("canonical form means something else:\n in %q\nout %s", data, forms[0])
			}
		}

		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		p := v.Clone()
		shuffleMembers(&p, r)
		for i, c := range canonForms(&p) {
			if !bytes.Equal(c, forms[i]) {
				t.Fatalf("%s changed when members were permuted:\nwant %s\n got %s", formNames[i], forms[i], c)
			}
		}
		// Sets in schema positions, for the schema and the tool forms.
		s := p.Clone()
		shuffleSets(&s, r)
		if c := canon.AppendSchema(nil, &s); !bytes.Equal(c, forms[2]) {
			t.Fatalf("AppendSchema changed when sets were permuted:\nwant %s\n got %s", forms[2], c)
		}
		tool := p.Clone()
		for _, k := range []string{"inputSchema", "outputSchema"} {
			if sch := tool.Get(k); sch != nil {
				shuffleSets(sch, r)
			}
		}
		if c := canon.AppendTool(nil, &tool); !bytes.Equal(c, forms[1]) {
			t.Fatalf("AppendTool changed when sets were permuted:\nwant %s\n got %s", forms[1], c)
		}

		// Normalization is idempotent, and invariant under permutation.
		n1 := v.Clone()
		canon.NormalizeTool(&n1)
		norm := canon.AppendTool(nil, &n1)
		canon.NormalizeTool(&n1)
		if again := canon.AppendTool(nil, &n1); !bytes.Equal(again, norm) {
			t.Fatalf("NormalizeTool not idempotent:\n first %s\nsecond %s", norm, again)
		}
		n2 := tool.Clone()
		canon.NormalizeTool(&n2)
		if c := canon.AppendTool(nil, &n2); !bytes.Equal(c, norm) {
			t.Fatalf("NormalizeTool result depends on member order:\nwant %s\n got %s", norm, c)
		}

		// Tool-set level: the order of the tools does not matter.
		tools := toolList(&v)
		if tools == nil {
			return
		}
		list := canon.AppendToolList(nil, tools)
		shuffled := toolList(&p)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if c := canon.AppendToolList(nil, shuffled); !bytes.Equal(c, list) {
			t.Fatalf("AppendToolList changed when tools were reordered:\nwant %s\n got %s", list, c)
		}
		root, err := canon.Parse(list)
		if err != nil {
			t.Fatalf("AppendToolList output does not parse: %v", err)
		}
		if again := canon.AppendToolList(nil, toolList(&root)); !bytes.Equal(again, list) {
			t.Fatalf("AppendToolList not idempotent:\n first %s\nsecond %s", list, again)
		}
	})
}
