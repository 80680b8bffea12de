package canon_test

import (
	"errors"
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
)

func ExampleParse() {
	_, err := canon.Parse([]byte(`{"name": "a", "name": "b"}`))
	var se *canon.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Offset, se.Msg)
	}
	// Output:
	// 14 duplicate member name "name" (first at byte offset 1)
}

func ExampleAppendJCS() {
	v, err := canon.Parse([]byte(`{"b": [1.0, 1e21, 0.0000001], "a": "\u20ac\/"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(canon.AppendJCS(nil, &v)))
	// Output:
	// {"a":"€/","b":[1,1e+21,1e-7]}
}

func ExampleAppendNumber() {
	for _, n := range []string{"100.0", "-0", "1E3", "9007199254740993", "1e400"} {
		fmt.Println(string(canon.AppendNumber(nil, n)))
	}
	// Output:
	// 100
	// 0
	// 1000
	// 9007199254740993
	// 1e+400
}

func ExampleAppendToolList() {
	doc := []byte(`{"tools": [
	  {"name": "search", "inputSchema": {"type": "object", "required": ["query", "limit"],
	    "properties": {"mode": {"enum": ["slow", "fast"], "default": ["b", "a"]}}}},
	  {"name": "echo", "inputSchema": {"type": "object"}}
	]}`)
	root, err := canon.Parse(doc)
	if err != nil {
		panic(err)
	}
	list := root.Get("tools")
	tools := make([]*canon.Value, len(list.Items))
	for i := range list.Items {
		tools[i] = &list.Items[i]
	}
	fmt.Println(string(canon.AppendToolList(nil, tools)))
	// Output:
	// {"tools":[{"inputSchema":{"type":"object"},"name":"echo"},{"inputSchema":{"properties":{"mode":{"default":["b","a"],"enum":["fast","slow"]}},"required":["limit","query"],"type":"object"},"name":"search"}]}
}

func ExampleFingerprint() {
	a, _ := canon.Parse([]byte(`{"name":"t","inputSchema":{"type":"object","required":["x","y"]}}`))
	b, _ := canon.Parse([]byte(`{"inputSchema":{"required":["y","x"],"type":"object"},"name":"t"}`))
	fa := canon.Fingerprint(canon.AppendTool(nil, &a))
	fb := canon.Fingerprint(canon.AppendTool(nil, &b))
	fmt.Println(fa == fb, len(fa))
	// Output:
	// true 64
}

func ExampleNormalizeTool() {
	tool, _ := canon.Parse([]byte(`{"name":"t","annotations":{"readOnlyHint":false},
	  "inputSchema":{"type":["object"],"properties":{"mode":{"const":"fast"}},"required":[]}}`))
	canon.NormalizeTool(&tool)
	fmt.Println(string(canon.AppendTool(nil, &tool)))
	// Output:
	// {"inputSchema":{"properties":{"mode":{"enum":["fast"]}},"type":"object"},"name":"t"}
}

func ExampleCompareKeys() {
	// U+FB33 sorts after U+1F600: UTF-16 code units, not code points.
	fmt.Println(canon.CompareKeys("\ufb33", "😀"))
	// Output:
	// 1
}

func ExampleWalkSchemas() {
	s, _ := canon.Parse([]byte(`{"properties":{"a/b":{"items":{"type":"string"}}},"default":{"properties":{}}}`))
	canon.WalkSchemas(&s, func(_ *canon.Value, ptr string) { fmt.Printf("%q\n", ptr) })
	// Output:
	// ""
	// "/properties/a~1b"
	// "/properties/a~1b/items"
}
