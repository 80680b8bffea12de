package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// FuzzDiff checks, for any two readable tool sets a and b: Compare does not
// panic; diff(a, a) and diff(a, canon(a)) have no finding; every witness of
// diff(a, b) and of diff(a, mutate(a)) holds; and --verify finds no rule
// bug on the mutated pair (a counterexample to a safe verdict); two runs
// of diff(a, b) give identical JSON.
func FuzzDiff(f *testing.F) {
	for _, c := range loadDiffCases(f) {
		f.Add(wrapToolsJSON(c.Old), wrapToolsJSON(c.New), []byte{1, 2, 3})
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "rules", "*"))
	for _, d := range dirs {
		o, err1 := os.ReadFile(filepath.Join(d, "old.json"))
		n, err2 := os.ReadFile(filepath.Join(d, "new.json"))
		if err1 == nil && err2 == nil {
			f.Add(o, n, []byte{4, 2})
		}
	}
	for _, name := range []string{"server-filesystem/2025.11.25", "server-filesystem/2026.7.10", "github-mcp-server/v0.11.0", "github-mcp-server/v1.10.0"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "realdata", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		var doc struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			f.Fatal(err)
		}
		for i, tl := range doc.Tools {
			if i%4 != 0 {
				continue
			}
			one := append(append([]byte(`{"tools":[`), tl...), "]}"...)
			f.Add(one, one, []byte{byte(i), byte(i * 7), byte(i * 13), 5})
		}
	}
	f.Fuzz(func(t *testing.T, a, b, choices []byte) {
		old, err := toolset.Decode("a", a)
		if err != nil {
			return
		}
		if r := Compare(old, old, Options{}); len(r.Changes) != 0 {
			t.Fatalf("diff(a, a) has findings:%s", changeSummary(r))
		}
		canonical, err := toolset.Decode("canon(a)", old.Canonical(false))
		if err != nil {
			t.Fatalf("canonical form does not decode: %v", err)
		}
		if r := Compare(old, canonical, Options{}); len(r.Changes) != 0 {
			t.Fatalf("diff(a, canon(a)) has findings:%s", changeSummary(r))
		}
		if new, err := toolset.Decode("b", b); err == nil {
			r1 := Compare(old, new, Options{Now: fixtureNow})
			checkWitnesses(t, old, new, r1)
			j1, _ := json.Marshal(r1)
			j2, _ := json.Marshal(Compare(old, new, Options{Now: fixtureNow}))
			if string(j1) != string(j2) {
				t.Fatalf("two runs differ:\n%s\n%s", j1, j2)
			}
		}
		mutated := mutateSet(t, old, choices, defaultMutations)
		r := Compare(old, mutated, Options{Verify: 8})
		checkWitnesses(t, old, mutated, r)
		for _, c := range r.Changes {
			if c.RuleBug {
				o, n := schemaOf(old, c.Tool, c.Direction), schemaOf(mutated, c.Tool, c.Direction)
				t.Errorf("rule bug on %s %s: witness %s\nold %s\nnew %s%s", c.Tool, c.Direction, c.Witness, jcsString(o), jcsString(n), changeSummary(r))
			}
		}
	})
}

func jcsString(v *canon.Value) string {
	if v == nil {
		return "(none)"
	}
	return string(canon.AppendJCS(nil, v))
}

// mutateSet returns a copy of s whose tools' schemas are changed by
// mutations picked by choices, at most maxMutations per schema. The bound
// is an argument, not a package variable, so tests that mutate with
// different bounds can run in parallel.
func mutateSet(t *testing.T, s *toolset.Set, choices []byte, maxMutations int) *toolset.Set {
	t.Helper()
	next := func() int {
		if len(choices) == 0 {
			return 0
		}
		c := int(choices[0])
		choices = choices[1:]
		return c
	}
	var values []*canon.Value
	for _, tl := range s.Tools {
		v := tl.Value.Clone()
		for _, key := range []string{"inputSchema", "outputSchema"} {
			sc := v.Get(key)
			if sc == nil || sc.Kind != canon.Object {
				continue
			}
			var subs []*canon.Value
			canon.WalkSchemas(sc, func(x *canon.Value, _ string) {
				if x.Kind == canon.Object {
					subs = append(subs, x)
				}
			})
			for n := next() % maxMutations; n >= 0 && len(subs) > 0; n-- {
				mutateSchema(subs[next()%len(subs)], next(), next())
			}
		}
		values = append(values, &v)
	}
	data := canon.AppendToolList(nil, values)
	m, err := toolset.Decode("mutated", data)
	if err != nil {
		t.Fatalf("mutated set does not decode: %v", err)
	}
	return m
}

// mutateSchema applies one change to a subschema, picked by op, with arg
// as a parameter.
func mutateSchema(s *canon.Value, op, arg int) {
	num := func(n int) canon.Value { return canon.NumberValue(itoaTest(n)) }
	types := []string{"string", "number", "integer", "boolean", "object", "array", "null"}
	str := func(x string) canon.Value { return canon.StringValue(x) }
	obj := func(ms ...canon.Member) canon.Value { return canon.ObjectValue(ms...) }
	mem := func(k string, v canon.Value) canon.Member { return canon.Member{Key: k, Value: v} }
	switch op % 27 {
	case 0:
		s.Set("type", canon.StringValue(types[arg%len(types)]))
	case 1:
		s.Delete("type")
	case 2:
		if e := s.Get("enum"); e != nil && e.Kind == canon.Array && len(e.Items) > 0 {
			e.Items = append(e.Items[:arg%len(e.Items):arg%len(e.Items)], e.Items[arg%len(e.Items)+1:]...)
		} else {
			s.Set("enum", canon.ArrayValue(canon.StringValue("a"), canon.StringValue("b")))
		}
	case 3:
		if e := s.Get("enum"); e != nil && e.Kind == canon.Array {
			e.Items = append(e.Items, canon.StringValue("z"+itoaTest(arg)))
		} else {
			s.Delete("enum")
		}
	case 4:
		s.Set([]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}[arg%4], num(arg%20-5))
	case 5:
		s.Set([]string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}[arg%6], num(arg%4))
	case 6:
		s.Set("pattern", canon.StringValue([]string{"^a", "b$", "^[0-9]+$", "x"}[arg%4]))
	case 7:
		s.Set("additionalProperties", canon.BoolValue(arg%2 == 0))
	case 8:
		if p := s.Get("properties"); p != nil && p.Kind == canon.Object && len(p.Members) > 0 {
			k := p.Members[arg%len(p.Members)].Key
			if arg%2 == 0 {
				p.Delete(k)
			} else {
				s.Set("required", canon.ArrayValue(canon.StringValue(k)))
			}
		}
	case 9:
		if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
			p.Set("new"+itoaTest(arg%3), canon.ObjectValue(canon.Member{Key: "type", Value: canon.StringValue(types[arg%len(types)])}))
		} else {
			s.Set("properties", canon.ObjectValue(canon.Member{Key: "p", Value: canon.ObjectValue()}))
		}
	case 10:
		s.Delete("required")
	case 11:
		c := s.Clone()
		*s = canon.ObjectValue(canon.Member{Key: "anyOf", Value: canon.ArrayValue(c, canon.ObjectValue(canon.Member{Key: "type", Value: canon.StringValue(types[arg%len(types)])}))})
	case 12:
		s.Set("not", canon.ObjectValue(canon.Member{Key: "enum", Value: canon.ArrayValue(canon.StringValue("x"), num(arg%3))}))
	case 13:
		s.Set("multipleOf", num(arg%4+1))
	case 14:
		s.Set("uniqueItems", canon.BoolValue(arg%2 == 0))
	case 15:
		s.Set("nullable", canon.BoolValue(true))
	case 16:
		c := s.Clone()
		*s = canon.ObjectValue(canon.Member{Key: "oneOf", Value: canon.ArrayValue(c, canon.ObjectValue(canon.Member{Key: "required", Value: canon.ArrayValue(canon.StringValue("k"))}))})
	case 17:
		s.Set("format", canon.StringValue([]string{"date", "email", "uri"}[arg%3]))
	case 18:
		c := s.Clone()
		*s = obj(mem("allOf", canon.ArrayValue(c, obj(mem([]string{"minLength", "minimum", "minItems"}[arg%3], num(1))))))
	case 19:
		s.Set("if", obj(mem("type", str(types[arg%len(types)]))))
		s.Set("then", obj(mem([]string{"maxLength", "maximum", "maxItems", "maxProperties"}[arg%4], num(arg%3))))
	case 20:
		c := s.Clone()
		*s = obj(mem("$defs", obj(mem("D", c))), mem("$ref", str("#/$defs/D")))
	case 21:
		s.Set("patternProperties", obj(mem([]string{"^x", "^p", "[0-9]"}[arg%3], obj(mem("type", str(types[arg%len(types)]))))))
	case 22:
		s.Set("prefixItems", canon.ArrayValue(obj(mem("type", str(types[arg%len(types)])))))
	case 23:
		s.Set("dependentRequired", obj(mem("a", canon.ArrayValue(str("b")))))
	case 24:
		s.Set("propertyNames", obj(mem("maxLength", num(arg%5))))
	case 25:
		s.Set("contains", obj(mem("type", str(types[arg%len(types)]))))
	case 26:
		s.Set("const", str("x"))
		s.Delete("enum")
	}
}

// defaultMutations bounds the mutations per schema of FuzzDiff and
// TestIssue9NoSilentChange.
const defaultMutations = 3

func itoaTest(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
