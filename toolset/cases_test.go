package toolset_test

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// canonCase is one "kind": "canon" entry of testdata/cases/cases.json, with
// its documents as their exact source bytes (so 1.0 stays 1.0).
type canonCase struct {
	id, about string
	a, b      []byte
	equal     *bool
	wantError bool
}

func loadCanonCases(t *testing.T) []canonCase {
	t.Helper()
	data, err := os.ReadFile("../testdata/cases/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	root, err := canon.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(c *canon.Value, key string) []byte {
		if v := c.Get(key); v != nil {
			return bytes.Clone(data[v.Start:v.End])
		}
		if v := c.Get("raw_" + key); v != nil && v.Kind == canon.String {
			return []byte(v.Str)
		}
		return nil
	}
	var cases []canonCase
	for i := range root.Items {
		c := &root.Items[i]
		if k := c.Get("kind"); k == nil || k.Str != "canon" {
			continue
		}
		cc := canonCase{id: c.Get("id").Str, a: doc(c, "a"), b: doc(c, "b")}
		if about := c.Get("about"); about != nil {
			cc.about = about.Str
		}
		exp := c.Get("expect")
		if eq := exp.Get("equal"); eq != nil {
			cc.equal = &eq.Bool
		}
		if e := exp.Get("error"); e != nil && e.Bool {
			cc.wantError = true
		}
		cases = append(cases, cc)
	}
	return cases
}

// TestCanonCases runs every canon case of testdata/cases/cases.json: both
// documents are decoded with toolset.Decode and their canonical forms
// compared byte for byte; a case that expects an error must fail to decode
// with a located *InputError. The table names each case by id, with what it
// pins, so a new case in the file fails here until it is looked at.
func TestCanonCases(t *testing.T) {
	t.Parallel()
	// For the error cases: the JSON Pointer of the value the error must point
	// at (its byte offset is checked against the document).
	known := map[string]string{
		"canon-key-order":           "",         // members in another order are one document
		"canon-tool-order":          "",         // the tools array is sorted by name
		"canon-set-keywords":        "",         // required, type and enum are sets in schemas
		"canon-default-array-order": "",         // an array-valued default keeps its order
		"canon-numbers":             "",         // 1.0 and 1 are one number (RFC 8785)
		"canon-duplicate-name":      "/tools/1", // the second tool named execute_sql
	}
	cases := loadCanonCases(t)
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.id)
	}
	var knownIDs []string
	for id := range known {
		knownIDs = append(knownIDs, id)
	}
	slices.Sort(ids)
	slices.Sort(knownIDs)
	if d := cmp.Diff(knownIDs, ids); d != "" {
		t.Errorf("canon case ids in cases.json changed; update this table (-table +file):\n%s", d)
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			if c.a == nil {
				t.Fatal("case has no document a")
			}
			setA, errA := toolset.Decode(c.id+"/a", c.a)
			if c.wantError {
				if errA == nil {
					t.Fatalf("Decode succeeded, want an error (%s)", c.about)
				}
				var ie *toolset.InputError
				if !errors.As(errA, &ie) || !errors.Is(errA, toolset.ErrInput) {
					t.Fatalf("error %v is not an *InputError wrapping ErrInput", errA)
				}
				if ie.Offset < 0 || ie.Line == 0 {
					t.Errorf("error is not located: %v", errA)
				}
				if ptr := known[c.id]; ptr != "" {
					root, err := canon.Parse(c.a)
					if err != nil {
						t.Fatal(err)
					}
					if want := valueAt(t, &root, ptr).Start; ie.Offset != want {
						t.Errorf("error offset = %d, want %d (%s): %v", ie.Offset, want, ptr, errA)
					}
				}
				return
			}
			if errA != nil {
				t.Fatalf("Decode a: %v", errA)
			}
			setB, err := toolset.Decode(c.id+"/b", c.b)
			if err != nil {
				t.Fatalf("Decode b: %v", err)
			}
			ca, cb := setA.Canonical(false), setB.Canonical(false)
			if c.equal == nil {
				t.Fatal("case has neither expect.equal nor expect.error")
			}
			if got := bytes.Equal(ca, cb); got != *c.equal {
				t.Errorf("canonical forms equal = %v, want %v (%s)\n a: %s\n b: %s", got, *c.equal, c.about, ca, cb)
			}
			if *c.equal && setA.Fingerprint() != setB.Fingerprint() {
				t.Errorf("fingerprints differ for equal documents")
			}
		})
	}
}

// valueAt resolves a JSON Pointer of plain tokens (no escapes) in v.
func valueAt(t *testing.T, v *canon.Value, ptr string) *canon.Value {
	t.Helper()
	for _, tok := range splitPointer(ptr) {
		switch v.Kind {
		case canon.Object:
			v = v.Get(tok)
		case canon.Array:
			i := 0
			for _, c := range tok {
				i = i*10 + int(c-'0')
			}
			v = &v.Items[i]
		default:
			v = nil
		}
		if v == nil {
			t.Fatalf("pointer %s does not resolve", ptr)
		}
	}
	return v
}

func splitPointer(ptr string) []string {
	var toks []string
	for ptr != "" {
		ptr = ptr[1:]
		i := 0
		for i < len(ptr) && ptr[i] != '/' {
			i++
		}
		toks = append(toks, ptr[:i])
		ptr = ptr[i:]
	}
	return toks
}
