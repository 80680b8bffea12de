package toolset

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpctl/mcpctl/canon"
)

// Shapes lists the document shapes Decode accepts, for error messages.
const Shapes = `a tools/list result {"tools":[…]}, a JSON-RPC response {"jsonrpc":"2.0","result":{"tools":[…]}}, or a bare array of tools`

// Decode reads one discovery document (docs/diff.md#inputs) strictly: a tools/list
// result, a full JSON-RPC response, or a bare array of tool objects. source
// names the input in errors. Every error is an *InputError with a byte
// offset (and line, column and JSON Pointer where they apply): invalid JSON
// (canon.Parse's strictness: duplicate keys, invalid UTF-8, trailing data),
// a shape none of the above, a tool that is not an object or has no string
// name, two tools with one name. The tools' Raw slices alias data, which must
// not be modified afterwards.
func Decode(source string, data []byte) (*Set, error) {
	root, err := canon.Parse(data)
	if err != nil {
		return nil, syntaxError(source, data, err)
	}
	list, ptr, serr := findToolList(&root)
	if serr != nil {
		return nil, located(source, data, serr.Offset, "", serr.Pointer, serr.Msg)
	}
	tools := make([]*Tool, 0, len(list.Items))
	lines := canon.NewLines(data)
	for i := range list.Items {
		item := &list.Items[i]
		p := ptr + "/" + strconv.Itoa(i)
		if item.Kind != canon.Object {
			return nil, located(source, data, item.Start, "", p, fmt.Sprintf("a tool must be an object, got %s", item.Kind))
		}
		t, serr := ToolFromValue(source, data, lines, item, i, p)
		if serr != nil {
			return nil, located(source, data, serr.Offset, "", serr.Pointer, serr.Msg)
		}
		tools = append(tools, t)
	}
	set, err := NewSet(source, tools)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.Offset >= 0 {
			ie.Line, ie.Col = canon.LineCol(data, ie.Offset)
		}
		return nil, err
	}
	return set, nil
}

// DecodeTool reads one tool object (a per-tool snapshot file). index is its
// position among the files of its folder. Errors are *InputError, located as
// in Decode; the tool's Raw aliases data.
func DecodeTool(source string, data []byte, index int) (*Tool, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, syntaxError(source, data, err)
	}
	if v.Kind != canon.Object {
		return nil, located(source, data, v.Start, "", "", fmt.Sprintf("a tool snapshot must be one tool object, got %s", v.Kind))
	}
	if !v.Has("name") && (v.Has("tools") || v.Has("result")) {
		return nil, located(source, data, v.Start, "", "", "each file in a folder of tool snapshots holds one tool object; this one is a whole tool set (give it as a source of its own)")
	}
	t, serr := ToolFromValue(source, data, canon.NewLines(data), &v, index, "")
	if serr != nil {
		return nil, located(source, data, serr.Offset, "", serr.Pointer, serr.Msg)
	}
	return t, nil
}

// ShapeError is a problem with the document's shape at byte offset Offset
// and JSON Pointer Pointer, for the caller to place (it names no source).
type ShapeError struct {
	Offset       int
	Pointer, Msg string
}

// ToolFromValue makes the tool of v, the tool object at JSON Pointer ptr
// of data (lines is data's line index, shared by the tools of one
// document); index is its position in its list.
func ToolFromValue(source string, data []byte, lines *canon.Lines, v *canon.Value, index int, ptr string) (*Tool, *ShapeError) {
	name := v.Get("name")
	if name == nil {
		return nil, &ShapeError{v.Start, ptr, `tool has no "name"`}
	}
	if name.Kind != canon.String {
		return nil, &ShapeError{name.Start, ptr + "/name", fmt.Sprintf(`tool "name" must be a string, got %s`, name.Kind)}
	}
	raw := data[v.Start:v.End:v.End]
	t := &Tool{Name: name.Str, Raw: raw, Value: *v, Source: source, Offset: v.Start, Index: index}
	t.Locate = func(ptr string) Position {
		line, col := lines.LineCol(t.Value.Nearest(ptr).Start)
		return Position{File: source, Line: line, Col: col}
	}
	return t, nil
}

// findToolList locates the tools array in a discovery document and returns
// it with its JSON Pointer.
func findToolList(root *canon.Value) (*canon.Value, string, *ShapeError) {
	switch root.Kind {
	case canon.Array:
		return root, "", nil
	case canon.Object:
		if tools := root.Get("tools"); tools != nil {
			if tools.Kind != canon.Array {
				return nil, "", &ShapeError{tools.Start, "/tools", fmt.Sprintf(`"tools" must be an array, got %s`, tools.Kind)}
			}
			return tools, "/tools", nil
		}
		if res := root.Get("result"); res != nil && root.Has("jsonrpc") {
			if res.Kind == canon.Object {
				if tools := res.Get("tools"); tools != nil {
					if tools.Kind != canon.Array {
						return nil, "", &ShapeError{tools.Start, "/result/tools", fmt.Sprintf(`"tools" must be an array, got %s`, tools.Kind)}
					}
					return tools, "/result/tools", nil
				}
			}
			return nil, "", &ShapeError{res.Start, "/result", `JSON-RPC response has no "result.tools" array (not a tools/list result)`}
		}
		if e := root.Get("error"); e != nil && root.Has("jsonrpc") {
			return nil, "", &ShapeError{e.Start, "/error", "JSON-RPC response is an error, not a tools/list result"}
		}
		if _, ptr := clientServerTable(root); ptr != "" {
			return nil, "", &ShapeError{root.Start, "", fmt.Sprintf("an MCP client configuration (%q), not a tool set: snapshot every server in it with `mcpctl snapshot --client-config FILE -o DIR`, or give one server as client-config:FILE#NAME", ptr[1:])}
		}
		if root.Has("name") && root.Has("inputSchema") {
			return nil, "", &ShapeError{root.Start, "", fmt.Sprintf("a single tool object, not a tool set; want %s (a folder of per-tool files is also accepted)", Shapes)}
		}
	}
	return nil, "", &ShapeError{root.Start, "", fmt.Sprintf("unknown document shape (%s); want %s", root.Kind, Shapes)}
}

func syntaxError(source string, data []byte, err error) error {
	var se *canon.SyntaxError
	if errors.As(err, &se) {
		line, col := canon.LineCol(data, se.Offset)
		return &InputError{Source: source, Offset: se.Offset, Line: line, Col: col, Msg: se.Msg, Err: err}
	}
	return &InputError{Source: source, Offset: -1, Msg: err.Error(), Err: err}
}

func located(source string, data []byte, off int, tool, ptr, msg string) error {
	line, col := canon.LineCol(data, off)
	return &InputError{Source: source, Offset: off, Line: line, Col: col, Tool: tool, Pointer: ptr, Msg: msg}
}
