package canon

import (
	"errors"
	"testing"
)

// TestSyntaxErrorTruncated: every cut of a valid JSON text that Parse
// refuses is Truncated (more bytes could complete it), and an error in the
// middle of the text is not. replay uses it to tell a torn last line (a
// crash while recording) from a broken one; it replaced a string scanner of
// its own in fixtures (issue 11).
func TestSyntaxErrorTruncated(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"tool":"a","arguments":{"q":"caf\u00e9 \"x\" \ud83d\ude00 ü","n":-12.5e+3,"ok":true,"no":false,"z":null,"l":[1,[],{}]}}`,
		`[true,false,null,"\\\/\b\f\n\r\t",0,-0.0,1E9]`,
	} {
		for i := 1; i < len(doc); i++ {
			_, err := Parse([]byte(doc[:i]))
			if err == nil {
				continue // a prefix that is itself valid ("1" of "12")
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !se.Truncated {
				t.Errorf("%q: %v, want a Truncated error", doc[:i], err)
			}
		}
	}
	for _, bad := range []string{`{"a":1,}`, `{"a":tru e}`, `"ab\x"`, `{"a" 1}`, `[1 2]`, `{"a":1 "b`, `nul1`, `"a` + "\x01" + `b"`, `01`} {
		_, err := Parse([]byte(bad))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Truncated {
			t.Errorf("%q: %v, want an error that is not Truncated", bad, err)
		}
	}
}
