package canon_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
)

// TestGetOnWideObjects checks the member index that makes Get constant
// time on wide objects (issue 9 item 12: one change in an object with
// 5,000 properties took 1.78 s, quadratic in Get's scans): every way of
// changing an object keeps Get right.
func TestGetOnWideObjects(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 40; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString("}")
	v, err := canon.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	want := func(v *canon.Value, key, num string) {
		t.Helper()
		got := v.Get(key)
		switch {
		case num == "" && got != nil:
			t.Errorf("Get(%q) = %s, want nil", key, got.Str)
		case num != "" && (got == nil || got.Str != num):
			t.Errorf("Get(%q) = %v, want %s", key, got, num)
		}
	}
	want(&v, "k0", "0")
	want(&v, "k39", "39")
	want(&v, "nope", "")

	c := v.Clone()
	c.Set("new", canon.NumberValue("7"))
	c.Set("k3", canon.NumberValue("33"))
	want(&c, "new", "7")
	want(&c, "k3", "33")
	want(&v, "new", "")
	want(&v, "k3", "3")

	if !c.Delete("k5") || c.Delete("k5") {
		t.Error("Delete k5: want true, then false")
	}
	want(&c, "k5", "")
	want(&c, "k6", "6")

	d := v.Clone()
	d.Members = append(d.Members, canon.Member{Key: "appended", Value: canon.NumberValue("8")})
	want(&d, "appended", "8")
	d.Members[0], d.Members[1] = d.Members[1], d.Members[0]
	want(&d, "k0", "0")
	want(&d, "k1", "1")

	e := v.Clone()
	e.Members[2].Key = "renamed"
	e.IndexMembers()
	want(&e, "renamed", "2")
	want(&e, "k2", "")
}
