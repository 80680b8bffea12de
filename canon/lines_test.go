package canon

import "testing"

// Lines (an index built once, for locating many offsets of one document:
// lint located each finding by scanning the document from its start) gives
// the position LineCol gives, at every offset and beyond both ends.
func TestLinesAgreesWithLineCol(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"", "\n", "a", "ab\ncd\r\n\nef", "\n\nx\n", "é\nü"} {
		l := NewLines([]byte(data))
		for off := -2; off <= len(data)+2; off++ {
			wl, wc := LineCol([]byte(data), off)
			gl, gc := l.LineCol(off)
			if wl != gl || wc != gc {
				t.Errorf("%q offset %d: Lines %d:%d, LineCol %d:%d", data, off, gl, gc, wl, wc)
			}
		}
	}
	if l, c := LineCol([]byte("ab\ncd"), 4); l != 2 || c != 2 {
		t.Errorf("LineCol(ab\\ncd, 4) = %d:%d, want 2:2", l, c)
	}
}
