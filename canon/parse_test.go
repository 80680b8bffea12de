package canon_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

// manyKeys returns an object text with n distinct members k0…k(n-1) and then
// the extra member text, and the byte offset where extra starts.
func manyKeys(n int, extra string) (string, int) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	off := b.Len()
	b.WriteString(extra + "}")
	return b.String(), off
}

// TestParseErrors pins every refusal of the strict parser (docs/canon.md#strict-input) with
// the byte offset it reports and a word of its message.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	many, manyOff := manyKeys(20, `"k3":true`)
	deep := strings.Repeat("[", canon.MaxDepth+1) + strings.Repeat("]", canon.MaxDepth+1)
	deepObj := strings.Repeat(`{"a":`, canon.MaxDepth+1) + "1" + strings.Repeat("}", canon.MaxDepth+1)
	tests := []struct {
		name   string
		in     string
		offset int
		msg    string // a substring of the message
	}{
		// Duplicate member names: the offset is the second key, the message
		// names the first key's offset.
		{"duplicate key", `{"a":1,"a":2}`, 7, "duplicate member name \"a\" (first at byte offset 1)"},
		{"duplicate key spaced", "{\n  \"id\": 1,\n  \"x\": 2,\n  \"id\": 3\n}", 25, "(first at byte offset 4)"},
		{"duplicate key after escape decoding", `{"a":1,"\u0061":2}`, 7, "(first at byte offset 1)"},
		{"duplicate key nested", `{"a":{"b":1,"c":2,"b":3}}`, 18, "(first at byte offset 6)"},
		{"duplicate key in large object", many, manyOff, fmt.Sprintf("(first at byte offset %d)", strings.Index(many, `"k3"`))},
		{"duplicate empty key", `{"":1,"":2}`, 6, "(first at byte offset 1)"},
		// Trailing data.
		{"trailing value", `{} {}`, 3, "trailing data"},
		{"trailing number", `1 2`, 2, "trailing data"},
		{"trailing brace", `{"a":1}}`, 7, "trailing data"},
		{"trailing garbage after whitespace", "[1]\n\nx", 5, "trailing data"},
		{"leading zero", `01`, 1, "trailing data"},
		{"trailing NUL", "{}\x00", 2, "trailing data"},
		// Invalid UTF-8, inside and outside strings.
		{"invalid byte in string", "\"a\xffb\"", 2, "invalid UTF-8 byte 0xff"},
		{"invalid byte in key", "{\"\xfe\":1}", 2, "invalid UTF-8 byte 0xfe"},
		{"overlong encoding", "\"\xc0\x80\"", 1, "invalid UTF-8"},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", 1, "invalid UTF-8"},
		{"truncated multibyte", "\"\xe2\x82\"", 1, "invalid UTF-8"},
		{"invalid byte after escape", "\"\\n\xff\"", 3, "invalid UTF-8 byte 0xff"},
		{"invalid byte as value", "[\xff]", 1, "byte 0xff"},
		{"invalid byte as key", "{\xff:1}", 1, "byte 0xff"},
		{"invalid byte trailing", "{\"a\":1}\xff", 7, "trailing data"},
		// Non-JSON values.
		{"NaN", `NaN`, 0, "want a JSON value"},
		{"NaN member", `{"a":NaN}`, 5, "want a JSON value"},
		{"Infinity", `[Infinity]`, 1, "want a JSON value"},
		{"-Infinity", `-Infinity`, 1, "invalid number"},
		{"plus sign", `+1`, 0, "want a JSON value"},
		{"leading dot", `.5`, 0, "want a JSON value"},
		{"hex", `0x10`, 1, "trailing data"},
		{"single quotes", `'a'`, 0, "want a JSON value"},
		{"undefined", `undefined`, 0, "want a JSON value"},
		{"bad literal", `nul`, 0, "want null"},
		{"capital literal", `True`, 0, "want a JSON value"},
		{"comment", `{"a":1 /* x */}`, 7, "want ',' or '}'"},
		// Lone surrogate escapes.
		{"lone high surrogate", `"\ud800"`, 1, "lone UTF-16 surrogate"},
		{"lone low surrogate", `"\udc00"`, 1, "lone UTF-16 surrogate"},
		{"high then non-surrogate", `"x\ud83d\u0041"`, 2, "lone UTF-16 surrogate"},
		{"high then high", `"\ud83d\ud83d"`, 1, "lone UTF-16 surrogate"},
		{"high then text", `"\ud83dx"`, 1, "lone UTF-16 surrogate"},
		{"reversed pair", `"\ude00\ud83d"`, 1, "lone UTF-16 surrogate"},
		{"high at end", `"\ud83d`, 1, "lone UTF-16 surrogate"},
		{"surrogate in key", `{"\udfff":1}`, 2, "lone UTF-16 surrogate"},
		// Byte order mark (RFC 8259 §8.1: must not be added).
		{"leading BOM", "\xef\xbb\xbf{}", 0, "byte order mark"},
		{"BOM after whitespace", " \xef\xbb\xbf{}", 1, "byte order mark"},
		// Control characters must be escaped inside strings.
		{"raw tab", "\"a\tb\"", 2, "control character 0x09"},
		{"raw newline", "\"a\nb\"", 2, "control character 0x0a"},
		{"raw NUL", "\"\x00\"", 1, "control character 0x00"},
		{"raw 0x1f after escape", "\"\\t\x1f\"", 3, "control character 0x1f"},
		{"raw control in key", "{\"a\x01\":1}", 3, "control character 0x01"},
		{"form feed is not whitespace", "\f{}", 0, "want a JSON value"},
		// Escapes.
		{"invalid escape", `"\x41"`, 1, "invalid escape"},
		{"invalid unicode escape", `"\u12g4"`, 1, "invalid \\u escape"},
		{"upper-case U escape", `"\U0041"`, 1, "invalid escape"},
		// Depth.
		{"array too deep", deep, canon.MaxDepth, "nesting deeper than"},
		{"object too deep", deepObj, canon.MaxDepth * 5, "nesting deeper than"},
		// Truncated input.
		{"empty", ``, 0, "unexpected end of input"},
		{"only whitespace", " \n\t", 3, "unexpected end of input"},
		{"open object", `{`, 1, "want a member name"},
		{"key only", `{"a"`, 4, "want ':'"},
		{"colon only", `{"a":`, 5, "unexpected end of input"},
		{"member without close", `{"a":1`, 6, "in object opened at byte offset 0"},
		{"open array", `[`, 1, "unexpected end of input"},
		{"array after comma", `[1,`, 3, "unexpected end of input"},
		{"nested array without close", `{"a":[1`, 7, "in array opened at byte offset 5"},
		{"unterminated string", `"abc`, 0, "unterminated string"},
		{"unterminated string after escape", `"a\n`, 0, "unterminated string"},
		{"backslash at end", `"\`, 0, "unterminated string"},
		{"truncated unicode escape", `"\u12`, 1, "truncated \\u escape"},
		{"truncated literal", `tru`, 0, "want true"},
		{"minus only", `-`, 1, "invalid number"},
		{"dot at end", `1.`, 2, "digit after '.'"},
		{"exponent at end", `1e`, 2, "exponent"},
		{"exponent sign at end", `1e+`, 3, "exponent"},
		// Structure.
		{"unquoted key", `{a:1}`, 1, "want a member name"},
		{"missing colon", `{"a" 1}`, 5, "want ':'"},
		{"missing comma", `[1 2]`, 3, "want ',' or ']'"},
		{"trailing comma in array", `[1,]`, 3, "want a JSON value"},
		{"trailing comma in object", `{"a":1,}`, 7, "want a member name"},
		{"leading comma", `[,1]`, 1, "want a JSON value"},
		{"empty number fraction", `[1.e5]`, 3, "digit after '.'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := canon.Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%.40q) succeeded, want an error at byte offset %d", tt.in, tt.offset)
			}
			if !errors.Is(err, canon.ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
			var se *canon.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SyntaxError", err)
			}
			if se.Offset != tt.offset {
				t.Errorf("offset = %d, want %d (%v)", se.Offset, tt.offset, err)
			}
			if !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", se.Msg, tt.msg)
			}
			if want := fmt.Sprintf("byte offset %d: ", tt.offset); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), want)
			}
		})
	}
}

// TestParseAccepts checks inputs at the edge of the grammar that must parse.
func TestParseAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string // want: the JCS form
	}{
		{"max depth", strings.Repeat("[", canon.MaxDepth) + strings.Repeat("]", canon.MaxDepth), strings.Repeat("[", canon.MaxDepth) + strings.Repeat("]", canon.MaxDepth)},
		{"surrounding whitespace", " \t\r\n{} \t\r\n", "{}"},
		{"scalars", `[null,true,false,0,-0,1.5e3,"s"]`, `[null,true,false,0,0,1500,"s"]`},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{"upper-case hex escapes", `"\u00E9\uD83D\uDE00"`, `"é😀"`},
		{"escaped NUL", `"\u0000"`, `"\u0000"`},
		{"all short escapes", `"\"\\\/\b\f\n\r\t"`, `"\"\\/\b\f\n\r\t"`},
		{"keys differing only after escapes", `{"a":1,"\u0041":2}`, `{"A":2,"a":1}`},
		{"valid U+FFFD", "\"\uFFFD\"", "\"\uFFFD\""},
		{"noncharacter U+FFFF", "\"\uFFFF\"", "\"\uFFFF\""},
		{"DEL raw", "\"\x7f\"", "\"\x7f\""},
		{"large object", func() string { s, _ := manyKeys(40, `"z":0`); return s }(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.want == "" {
				return
			}
			if got := string(canon.AppendJCS(nil, &v)); got != tt.want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(tt.want, got))
			}
		})
	}
}

// TestParseTree checks the ordered tree: member order, number text, decoded
// strings and byte ranges (Start, End, KeyStart).
func TestParseTree(t *testing.T) {
	t.Parallel()
	src := `{"b": [1.50, "x\ty"], "a": {"k": null}, "c": -0e1}`
	v, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		Key        string
		KeyStart   int
		Kind       string
		Str        string
		Start, End int
	}
	var got []node
	var walk func(key string, keyStart int, v *canon.Value)
	walk = func(key string, keyStart int, v *canon.Value) {
		got = append(got, node{key, keyStart, v.Kind.String(), v.Str, v.Start, v.End})
		for i := range v.Items {
			walk("", 0, &v.Items[i])
		}
		for i := range v.Members {
			walk(v.Members[i].Key, v.Members[i].KeyStart, &v.Members[i].Value)
		}
	}
	walk("", 0, &v)
	want := []node{
		{"", 0, "object", "", 0, 51},
		{"b", 1, "array", "", 6, 20},
		{"", 0, "number", "1.50", 7, 11},
		{"", 0, "string", "x\ty", 13, 19},
		{"a", 22, "object", "", 27, 38},
		{"k", 28, "null", "", 33, 37},
		{"c", 40, "number", "-0e1", 45, 49},
	}
	// End of the root: the closing brace is the last byte.
	want[0].End = len(src)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	for _, n := range got {
		if n.Kind == "number" && src[n.Start:n.End] != n.Str {
			t.Errorf("number source %q != text %q", src[n.Start:n.End], n.Str)
		}
	}
}

func TestLineCol(t *testing.T) {
	t.Parallel()
	data := []byte("{\n  \"a\": 1,\n  \"a\": 2\n}")
	tests := []struct{ off, line, col int }{
		{0, 1, 1},
		{1, 1, 2},
		{2, 2, 1},
		{4, 2, 3},
		{14, 3, 3},
		{len(data), 4, 2},
		{len(data) + 10, 4, 2},
	}
	for _, tt := range tests {
		line, col := canon.LineCol(data, tt.off)
		if line != tt.line || col != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

// TestParseAfterFailedParse: Parse reuses its stacks between calls, and a
// parse that fails inside nested containers leaves entries on them; the
// next parse must still see only its own members and items.
func TestParseAfterFailedParse(t *testing.T) {
	for _, bad := range []string{`{"a":{"b":[1,2,{"c":`, `[[1,2],[3,{"x":1,"x":2}]]`, `{"a":[1,2,3],"b":}`} {
		if _, err := canon.Parse([]byte(bad)); err == nil {
			t.Fatalf("Parse(%s) = nil error", bad)
		}
		v, err := canon.Parse([]byte(`{"k":[true,{"m":null}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(canon.AppendOrdered(nil, &v)), `{"k":[true,{"m":null}]}`; got != want {
			t.Errorf("after Parse(%s): got %s, want %s", bad, got, want)
		}
	}
}
