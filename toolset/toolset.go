package toolset

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// ErrInput is wrapped by every error about unreadable input (not JSON, a
// duplicate key, an unknown shape, two tools with one name, a source that
// cannot be read). The CLI maps it to exit code 2.
var ErrInput = errors.New("bad input")

// InputError is a located problem with a source: which source, where in it
// (byte offset, and line and column when known), which tool and which JSON
// Pointer (RFC 6901) inside that tool, and what is wrong.
type InputError struct {
	Source  string
	Offset  int // byte offset in the source, -1 when unknown
	Line    int // 1-based, 0 when unknown
	Col     int // 1-based, 0 when unknown (then only FILE:LINE is printed)
	Tool    string
	Pointer string
	Msg     string
	Err     error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (byte offset %d)", e.Offset)
	}
	b.WriteString(": ")
	if e.Tool != "" {
		fmt.Fprintf(&b, "tool %q: ", e.Tool)
	}
	if e.Pointer != "" {
		fmt.Fprintf(&b, "%s: ", e.Pointer)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrInput and the underlying cause, if any.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInput, e.Err}
	}
	return []error{ErrInput}
}

// Tool is one MCP tool definition (MCP 2025-11-25 schema.ts, Tool), kept two
// ways: Raw, its exact bytes from the source (member order preserved, to be
// served and snapshotted as received), and Value, the parsed ordered tree used
// for analysis.
type Tool struct {
	Name  string
	Raw   []byte
	Value canon.Value
	// Source names where the tool came from (a file, "git:REV:PATH", a
	// server); Offset is its byte offset there (-1 when unknown) and Index
	// its position in the source's tool list.
	Source string
	Offset int
	Index  int
	// Locate, when set, says where the value at a JSON Pointer inside the
	// tool (or the nearest enclosing value) was written: set by Decode for
	// files and by serve configs for their YAML or JSON.
	Locate func(ptr string) Position
}

// Position is a place in a source file: 1-based Line and Col, 0 when
// unknown.
type Position struct {
	File      string
	Line, Col int
}

// Canonical returns the tool's canonical form (docs/canon.md#canonical-form); with normalize,
// the semantic normalizations of canon.NormalizeTool are applied first.
func (t *Tool) Canonical(normalize bool) []byte {
	if !normalize {
		return canon.AppendTool(nil, &t.Value)
	}
	v := t.Value.Clone()
	canon.NormalizeTool(&v)
	return canon.AppendTool(nil, &v)
}

// Fingerprint returns the hex SHA-256 of the tool's canonical form.
func (t *Tool) Fingerprint() string { return canon.Fingerprint(t.Canonical(false)) }

// InputSchema returns the tool's inputSchema member, or nil when absent.
func (t *Tool) InputSchema() *canon.Value { return t.Value.Get("inputSchema") }

// OutputSchema returns the tool's outputSchema member, or nil when absent.
func (t *Tool) OutputSchema() *canon.Value { return t.Value.Get("outputSchema") }

// Set is the tool set of one server at one moment (a discovery document):
// its tools sorted by name, names unique.
type Set struct {
	// Source is a display name for where the set came from.
	Source string
	Tools  []*Tool
}

// NewSet builds a set from tools in any order. Two tools with one name are an
// *InputError naming both positions. Tools are sorted by name (RFC 8785
// key order, so the order matches the canonical form).
func NewSet(source string, tools []*Tool) (*Set, error) {
	sorted := slices.Clone(tools)
	slices.SortStableFunc(sorted, func(a, b *Tool) int { return canon.CompareKeys(a.Name, b.Name) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Name == sorted[i-1].Name {
			a, b := sorted[i-1], sorted[i]
			if a.Index > b.Index {
				a, b = b, a
			}
			return nil, &InputError{Source: source, Offset: b.Offset, Tool: b.Name,
				Msg: fmt.Sprintf("duplicate tool name: tools[%d] and tools[%d] are both named %q (at byte offsets %d and %d)", a.Index, b.Index, b.Name, a.Offset, b.Offset)}
		}
	}
	return &Set{Source: source, Tools: sorted}, nil
}

// Lookup returns the tool named name, or nil.
func (s *Set) Lookup(name string) *Tool {
	i, ok := slices.BinarySearchFunc(s.Tools, name, func(t *Tool, n string) int { return canon.CompareKeys(t.Name, n) })
	if !ok {
		return nil
	}
	return s.Tools[i]
}

// Names returns the tool names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name
	}
	return names
}

// Canonical returns the set's canonical form {"tools":[…]} (docs/canon.md#canonical-form);
// with normalize, canon.NormalizeTool is applied to each tool first.
func (s *Set) Canonical(normalize bool) []byte {
	size := 16
	for _, t := range s.Tools {
		size += len(t.Raw) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"tools":[`...)
	for i, t := range s.Tools {
		if i > 0 {
			buf = append(buf, ',')
		}
		if normalize {
			v := t.Value.Clone()
			canon.NormalizeTool(&v)
			buf = canon.AppendTool(buf, &v)
		} else {
			buf = canon.AppendTool(buf, &t.Value)
		}
	}
	return append(buf, "]}"...)
}

// Fingerprint returns the hex SHA-256 of the set's canonical form.
func (s *Set) Fingerprint() string { return canon.Fingerprint(s.Canonical(false)) }
