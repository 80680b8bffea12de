package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/toolset"
)

// FacadesMember is the name of the lockfile's facades member.
const FacadesMember = "facades"

// Lock is a decoded contract lockfile: the tool set and the facade blocks
// of its tools (empty when the file declares none).
type Lock struct {
	Set     *toolset.Set
	Facades facade.File
}

// Write writes set and facades as a lockfile: toolset.WriteSnapshot's
// output, plus a "facades" member (tool name → facade block, keys sorted)
// when facades is not empty. A facade for a tool the set does not have is
// an error; nothing is written then.
func Write(w io.Writer, set *toolset.Set, facades facade.File) error {
	if len(facades) == 0 {
		return toolset.WriteSnapshot(w, set)
	}
	data, err := facadesJSON(set, facades)
	if err != nil {
		return err
	}
	return toolset.WriteSnapshotWith(w, set, toolset.Member{Name: FacadesMember, Value: data})
}

// facadesJSON is the facades member's value; a facade for a tool the set
// does not have is an error.
func facadesJSON(set *toolset.Set, facades facade.File) ([]byte, error) {
	for name := range facades {
		if set.Lookup(name) == nil {
			return nil, fmt.Errorf("lockfile of %s: a facade for %q, which is not one of its tools", set.Source, name)
		}
	}
	data, err := json.Marshal(facades)
	if err != nil {
		return nil, fmt.Errorf("lockfile of %s: facades: %w", set.Source, err)
	}
	return data, nil
}

// AppendCompact appends the lockfile Write writes, on one line (no
// whitespace between tokens; the same members, tools in the set's order,
// each tool's bytes compacted): what a journal line embeds. Decode reads
// it back as it reads Write's output.
func AppendCompact(dst []byte, set *toolset.Set, facades facade.File) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	buf.WriteString(`{"tools":[`)
	for i, t := range set.Tools {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := json.Compact(buf, t.Raw); err != nil {
			return nil, fmt.Errorf("lockfile of %s: tool %q: %w", set.Source, t.Name, err)
		}
	}
	buf.WriteByte(']')
	if len(facades) > 0 {
		data, err := facadesJSON(set, facades)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`,"` + FacadesMember + `":`)
		buf.Write(data)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// ReadFile reads the lockfile at path; see Decode.
func ReadFile(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &toolset.InputError{Source: path, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	return Decode(path, data)
}

// Decode reads a lockfile's bytes; source names it in errors. The tools are
// read by toolset.Decode (any shape it accepts); the "facades" member, when
// present, must be an object of tool name → facade block, each read with
// exactly the checks of a facade file (facade.ParseBlock) and naming a tool
// of the set. Errors are *toolset.InputError (wrapping toolset.ErrInput)
// with the byte offset, line, column, tool and JSON Pointer; one about a
// facade block also wraps facade.ErrInvalid.
func Decode(source string, data []byte) (*Lock, error) {
	set, err := toolset.Decode(source, data)
	if err != nil {
		return nil, err
	}
	lock := &Lock{Set: set, Facades: facade.File{}}
	if !bytes.Contains(data, []byte(`"`+FacadesMember+`"`)) {
		return lock, nil // no facades: skip the second parse
	}
	root, err := canon.Parse(data)
	if err != nil { // toolset.Decode parsed it already
		return nil, err
	}
	fv := root.Get(FacadesMember)
	if root.Kind != canon.Object || fv == nil {
		return lock, nil
	}
	if fv.Kind != canon.Object {
		return nil, located(source, data, fv.Start, "", "/"+FacadesMember, fmt.Sprintf("%q must be an object (tool name → facade block), got %s", FacadesMember, fv.Kind), nil)
	}
	if err := decodeFacades(lock, source, data, fv); err != nil {
		return nil, err
	}
	return lock, nil
}

// decodeFacades reads the facades object fv (a slice of data) as YAML, so
// facade.ParseBlock checks each block, and maps its line and column back
// to a byte offset in data.
func decodeFacades(lock *Lock, source string, data []byte, fv *canon.Value) error {
	sub := data[fv.Start:fv.End]
	var doc yaml.Node
	if err := yaml.Unmarshal(sub, &doc); err != nil || len(doc.Content) != 1 {
		return located(source, data, fv.Start, "", "/"+FacadesMember, fmt.Sprintf("cannot read %q: %v", FacadesMember, err), err)
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		ptr := "/" + FacadesMember + "/" + canon.EscapePointer(k.Value)
		kOff := fv.Start + offsetAt(sub, k.Line, k.Column)
		if lock.Set.Lookup(k.Value) == nil {
			return located(source, data, kOff, k.Value, ptr, "a facade for a tool the lockfile does not list", nil)
		}
		b, err := facade.ParseBlock(source, v, k.Value)
		var fe *facade.FileError
		if errors.As(err, &fe) {
			return located(source, data, fv.Start+offsetAt(sub, fe.Line, fe.Col), k.Value, ptr, fe.Msg, err)
		}
		lock.Facades[k.Value] = b
	}
	return nil
}

// offsetAt returns the byte offset in data of the 1-based line and column
// (counted in characters, as the YAML parser reports them).
func offsetAt(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(data) && data[off] != '\n'; c++ {
		_, n := utf8.DecodeRune(data[off:])
		off += n
	}
	return off
}

func located(source string, data []byte, off int, tool, ptr, msg string, err error) error {
	line, col := canon.LineCol(data, off)
	return &toolset.InputError{Source: source, Offset: off, Line: line, Col: col, Tool: tool, Pointer: ptr, Msg: msg, Err: err}
}
