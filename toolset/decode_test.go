package toolset_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

func TestDecodeShapes(t *testing.T) {
	t.Parallel()
	const tool = `{"name":"b","inputSchema":{"type":"object"}}`
	const tool2 = `{"inputSchema":{"type":"object"},"name":"a"}`
	tests := []struct {
		name string
		doc  string
	}{
		{"tools/list result", `{"tools":[` + tool + `,` + tool2 + `],"nextCursor":null}`},
		{"JSON-RPC response", `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + tool + `,` + tool2 + `]}}`},
		{"bare array", "[\n" + tool + ",\n" + tool2 + "\n]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.doc)
			set, err := toolset.Decode("doc.json", data)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"a", "b"}, set.Names()); d != "" {
				t.Errorf("names: mismatch (-want +got):\n%s", d)
			}
			for _, tl := range set.Tools {
				// Raw is the exact source text, at Offset.
				want := tool
				index := 0
				if tl.Name == "a" {
					want, index = tool2, 1
				}
				if string(tl.Raw) != want {
					t.Errorf("%s Raw = %s, want %s", tl.Name, tl.Raw, want)
				}
				if tl.Offset != strings.Index(tt.doc, want) || tl.Index != index || tl.Source != "doc.json" {
					t.Errorf("%s: Offset %d Index %d Source %q", tl.Name, tl.Offset, tl.Index, tl.Source)
				}
			}
			want := `{"tools":[{"inputSchema":{"type":"object"},"name":"a"},{"inputSchema":{"type":"object"},"name":"b"}]}`
			if got := string(set.Canonical(false)); got != want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(want, got))
			}
			if got, want := set.Fingerprint(), canon.Fingerprint([]byte(want)); got != want {
				t.Errorf("Fingerprint = %s, want %s", got, want)
			}
			if set.Lookup("a") == nil || set.Lookup("b") == nil || set.Lookup("c") != nil {
				t.Error("Lookup does not find exactly a and b")
			}
		})
	}
}

// TestDecodeRawIsCapped: appending to one tool's Raw must not overwrite the
// next tool in the shared source buffer.
func TestDecodeRawIsCapped(t *testing.T) {
	t.Parallel()
	data := []byte(`[{"name":"a"},{"name":"b"}]`)
	set, err := toolset.Decode("x", data)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(set.Lookup("a").Raw, "XXXXXX"...)
	if got := string(data); got != `[{"name":"a"},{"name":"b"}]` {
		t.Errorf("source buffer changed: %s", got)
	}
}

// TestDecodeErrors checks that every refusal is a located *InputError
// wrapping ErrInput: byte offset, line and column, JSON Pointer.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		doc       string
		offset    int
		line, col int
		pointer   string
		tool      string
		msg       string
	}{
		{"not JSON", `{"tools":[}`, 10, 1, 11, "", "", "want a JSON value"},
		{"duplicate key", "{\"tools\":[],\n\"tools\":[]}", 13, 2, 1, "", "", "duplicate member name \"tools\" (first at byte offset 1)"},
		{"duplicate key in a tool", `{"tools":[{"name":"a","name":"b"}]}`, 22, 1, 23, "", "", "duplicate member name"},
		{"trailing data", `{"tools":[]} x`, 13, 1, 14, "", "", "trailing data"},
		{"invalid UTF-8", "{\"tools\":[{\"name\":\"\xff\"}]}", 19, 1, 20, "", "", "invalid UTF-8"},
		{"NaN", `{"tools":[{"name":"a","inputSchema":{"maximum":NaN}}]}`, 47, 1, 48, "", "", "want a JSON value"},
		{"BOM", "\xef\xbb\xbf{\"tools\":[]}", 0, 1, 1, "", "", "byte order mark"},
		{"tools not an array", `{"tools":{"a":{}}}`, 9, 1, 10, "/tools", "", `"tools" must be an array, got object`},
		{"result.tools not an array", `{"jsonrpc":"2.0","id":1,"result":{"tools":null}}`, 42, 1, 43, "/result/tools", "", `"tools" must be an array, got null`},
		{"JSON-RPC without tools", `{"jsonrpc":"2.0","id":1,"result":{}}`, 33, 1, 34, "/result", "", `no "result.tools" array`},
		{"JSON-RPC error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, 32, 1, 33, "/error", "", "JSON-RPC response is an error"},
		{"single tool", `{"name":"a","inputSchema":{}}`, 0, 1, 1, "", "", "a single tool object, not a tool set"},
		{"unknown object", `{"items":[]}`, 0, 1, 1, "", "", "unknown document shape (object)"},
		{"string", ` "tools"`, 1, 1, 2, "", "", "unknown document shape (string)"},
		{"tool not an object", `{"tools":[{"name":"a"},"b"]}`, 23, 1, 24, "/tools/1", "", "a tool must be an object, got string"},
		{"tool without name", "[\n  {\"description\":\"x\"}\n]", 4, 2, 3, "/0", "", `tool has no "name"`},
		{"name not a string", `[{"name":"a"},{"name":7}]`, 22, 1, 23, "/1/name", "", `tool "name" must be a string, got number`},
		{"duplicate tool names", "{\"tools\":[\n{\"name\":\"a\"},\n{\"name\":\"b\"},\n{\"name\":\"a\"}]}", 39, 4, 1, "", "a",
			`tools[0] and tools[2] are both named "a" (at byte offsets 11 and 39)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := toolset.Decode("in.json", []byte(tt.doc))
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			if !errors.Is(err, toolset.ErrInput) {
				t.Errorf("error does not wrap ErrInput: %v", err)
			}
			var ie *toolset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *InputError", err)
			}
			type loc struct {
				Source        string
				Offset, L, C  int
				Pointer, Tool string
			}
			want := loc{"in.json", tt.offset, tt.line, tt.col, tt.pointer, tt.tool}
			got := loc{ie.Source, ie.Offset, ie.Line, ie.Col, ie.Pointer, ie.Tool}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("location mismatch (-want +got):\n%s\n%v", d, err)
			}
			if !strings.Contains(ie.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", ie.Msg, tt.msg)
			}
		})
	}
}

func TestDecodeSyntaxErrorWrapsCause(t *testing.T) {
	t.Parallel()
	_, err := toolset.Decode("in.json", []byte(`{"a":1,"a":2}`))
	if !errors.Is(err, canon.ErrSyntax) {
		t.Errorf("error %v does not wrap canon.ErrSyntax", err)
	}
	if want := `in.json:1:8 (byte offset 7): duplicate member name "a" (first at byte offset 1)`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestInputErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  toolset.InputError
		want string
	}{
		{toolset.InputError{Source: "a.json", Offset: -1, Msg: "cannot read"}, "a.json: cannot read"},
		{toolset.InputError{Source: "a.json", Offset: 5, Line: 2, Col: 3, Tool: "t", Pointer: "/tools/0", Msg: "bad"},
			`a.json:2:3 (byte offset 5): tool "t": /tools/0: bad`},
		{toolset.InputError{Source: "<stdin>", Offset: 0, Msg: "x"}, "<stdin> (byte offset 0): x"},
		{toolset.InputError{Source: "c.yaml", Offset: -1, Line: 4, Msg: "invalid YAML"}, "c.yaml:4: invalid YAML"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDecodeTool(t *testing.T) {
	t.Parallel()
	tl, err := toolset.DecodeTool("snaps/a.snap", []byte(" {\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}}\n"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Name != "a" || tl.Offset != 1 || tl.Index != 3 || tl.Source != "snaps/a.snap" || string(tl.Raw) != `{"name":"a","inputSchema":{"type":"object"}}` {
		t.Errorf("got %+v", tl)
	}
	if tl.InputSchema() == nil || tl.OutputSchema() != nil {
		t.Error("InputSchema/OutputSchema accessors wrong")
	}
	for doc, msg := range map[string]string{
		`[{"name":"a"}]`: "a tool snapshot must be one tool object, got array",
		`{"title":"a"}`:  `tool has no "name"`,
		`{"name":"a"`:    "unexpected end of input",
	} {
		_, err := toolset.DecodeTool("x.json", []byte(doc), 0)
		var ie *toolset.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Msg, msg) || ie.Offset < 0 {
			t.Errorf("DecodeTool(%s) error = %v, want a located error containing %q", doc, err, msg)
		}
	}
}

// TestNewSet checks sorting by UTF-16 code units and the duplicate refusal.
func TestNewSet(t *testing.T) {
	t.Parallel()
	mk := func(name string, i int) *toolset.Tool { return &toolset.Tool{Name: name, Index: i, Offset: 10 * i} }
	set, err := toolset.NewSet("s", []*toolset.Tool{mk("\ufb33", 0), mk("😀", 1), mk("b", 2), mk("B", 3), mk("a", 4)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"B", "a", "b", "😀", "\ufb33"}, set.Names()); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	for _, n := range set.Names() {
		if set.Lookup(n) == nil {
			t.Errorf("Lookup(%q) = nil", n)
		}
	}
	_, err = toolset.NewSet("s", []*toolset.Tool{mk("x", 0), mk("y", 1), mk("x", 2)})
	var ie *toolset.InputError
	if !errors.As(err, &ie) || ie.Tool != "x" || ie.Offset != 20 {
		t.Errorf("NewSet duplicate error = %#v", err)
	}
}
