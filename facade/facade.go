// Package facade models compatibility facades (docs/glossary.md#glossary, docs/serve.md#config): declared
// translations that turn a call made against an old tool contract into one
// the new contract accepts. One model serves diff (suggestions and
// coverage), replay and serve.
//
// A facade file is a map from tool name to Block, in YAML or JSON:
//
//	search_documents:
//	  rename:   {q: query}
//	  defaults: {limit: 20}
//	  coerce:   {limit: integer}
//	  values:   {confidence: {low: LOW, high: HIGH}}
//	  aliases:
//	    - search_docs
//	    - {name: list_workflows, inject: {method: list_workflows}}
package facade

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Block is the facade of one tool: how old calls reach it. Keys of Rename,
// Defaults, Coerce and Values are argument names, or JSON Pointers (RFC 6901,
// starting with "/") for nested arguments.
type Block struct {
	// Rename maps an old argument name to its new name.
	Rename map[string]string `json:"rename,omitempty" yaml:"rename,omitempty"`
	// Defaults are filled in when the argument is missing.
	Defaults map[string]any `json:"defaults,omitempty" yaml:"defaults,omitempty"`
	// Coerce names the type an argument is converted to: "string",
	// "number", "integer", "boolean" or "array".
	Coerce map[string]string `json:"coerce,omitempty" yaml:"coerce,omitempty"`
	// Values maps, per argument, old enum values to new ones.
	Values map[string]map[string]any `json:"values,omitempty" yaml:"values,omitempty"`
	// Aliases are old tool names routed to this tool.
	Aliases []Alias `json:"aliases,omitempty" yaml:"aliases,omitempty"`
}

// Alias is an old tool name routed to the tool that declares it, with
// optional constant arguments to inject (a consolidated tool's
// discriminator, e.g. {method: list_workflows}) and translations that apply
// only to calls made under the old name.
type Alias struct {
	Name     string                    `json:"name" yaml:"name"`
	Inject   map[string]any            `json:"inject,omitempty" yaml:"inject,omitempty"`
	Rename   map[string]string         `json:"rename,omitempty" yaml:"rename,omitempty"`
	Defaults map[string]any            `json:"defaults,omitempty" yaml:"defaults,omitempty"`
	Values   map[string]map[string]any `json:"values,omitempty" yaml:"values,omitempty"`
}

// plain reports whether the alias is only a name (written as a bare string).
func (a Alias) plain() bool {
	return len(a.Inject) == 0 && len(a.Rename) == 0 && len(a.Defaults) == 0 && len(a.Values) == 0
}

// MarshalJSON writes a plain alias as its name, others as an object.
func (a Alias) MarshalJSON() ([]byte, error) {
	if a.plain() {
		return json.Marshal(a.Name)
	}
	type obj Alias
	return json.Marshal(obj(a))
}

// UnmarshalJSON accepts a string or an object.
func (a *Alias) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Alias{Name: s}
		return nil
	}
	type obj Alias
	var o obj
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*a = Alias(o)
	return nil
}

// MarshalYAML writes a plain alias as its name, others as a mapping.
func (a Alias) MarshalYAML() (any, error) {
	if a.plain() {
		return a.Name, nil
	}
	type obj Alias
	return obj(a), nil
}

// UnmarshalYAML accepts a scalar or a mapping.
func (a *Alias) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*a = Alias{Name: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an alias is a tool name or a mapping {name, inject, rename, defaults, values}", n.Line)
	}
	type obj Alias
	var o obj
	if err := n.Decode(&o); err != nil {
		return err
	}
	*a = Alias(o)
	return nil
}

// File is a facade file: tool name → Block.
type File map[string]Block

// AliasTarget returns the tool whose block declares the alias name, the
// first in name order; "" when none does.
func (f File) AliasTarget(name string) string {
	tools := slices.Sorted(maps.Keys(f))
	for _, tool := range tools {
		if slices.ContainsFunc(f[tool].Aliases, func(a Alias) bool { return a.Name == name }) {
			return tool
		}
	}
	return ""
}
