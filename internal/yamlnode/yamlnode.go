// Package yamlnode holds the strict YAML node walking shared by mcpctl's
// file loaders (.mcpctl.yaml, facade files): mappings with string keys and
// no duplicates, every problem located by line and column.
package yamlnode

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Error is a problem at one YAML node: Line and Col are 1-based.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

func at(n *yaml.Node, format string, args ...any) *Error {
	return &Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// Pairs returns a mapping's key/value pairs in order. what names the
// mapping in errors. A node that is not a mapping, a key that is not a
// scalar, or a key given twice (YAML 1.2 §3.2.1.1 requires unique keys) is an
// *Error at the offending node.
func Pairs(n *yaml.Node, what string) ([][2]*yaml.Node, *Error) {
	if n.Kind != yaml.MappingNode {
		return nil, at(n, "%s must be a mapping", what)
	}
	seen := map[string]int{}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, at(k, "%s: keys must be strings", what)
		}
		if line, ok := seen[k.Value]; ok {
			return nil, at(k, "%s: duplicate key %q (first at line %d)", what, k.Value, line)
		}
		seen[k.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}
