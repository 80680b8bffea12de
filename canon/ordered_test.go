package canon

import "testing"

// TestAppendOrdered: members keep the order written (not RFC 8785's
// sorted order), numbers keep their text, strings are escaped as RFC 8785
// escapes them; StripOffsets clears every byte offset below v.
func TestAppendOrdered(t *testing.T) {
	t.Parallel()
	in := `{"z":1.50,"a":[true,null,"\u00e9\n"],"m":{"y":{},"b":[]}}`
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1.50,"a":[true,null,"é\n"],"m":{"y":{},"b":[]}}`
	if got := string(AppendOrdered(nil, &v)); got != want {
		t.Errorf("AppendOrdered = %s, want %s", got, want)
	}
	s := StripOffsets(v)
	if s.End != 0 || s.Members[1].KeyStart != 0 || s.Members[1].Value.Items[2].Start != 0 || s.Members[2].Value.Members[0].Value.End != 0 {
		t.Errorf("offsets left: %+v", s)
	}
	if v.End == 0 {
		t.Error("StripOffsets changed its argument's offsets")
	}
}
