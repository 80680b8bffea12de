package serve

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// toolNamePattern is the MCP tool name rule (DESIGN §3b.2; MCP 2025-11-25
// server/tools "Tool names"): 1–128 characters of A–Z a–z 0–9 _ - .
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,128}$`)

// validName explains why name is not a valid MCP tool name, or returns "".
func validName(name string) string {
	if toolNamePattern.MatchString(name) {
		return ""
	}
	switch {
	case name == "":
		return "a tool name must not be empty"
	case len(name) > 128:
		return fmt.Sprintf("a tool name has at most 128 characters, this one has %d", len(name))
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Sprintf("a tool name may only use A-Z a-z 0-9 _ - . (found %q)", r)
		}
	}
	return "invalid tool name"
}

// compiledTool is a validated tool: its schemas compiled.
type compiledTool struct {
	cfg *ToolConfig
	in  *schema.Compiled
	out *schema.Compiled // nil without an outputSchema
}

// validateConfig checks every tool of cfg for MCP validity (DESIGN §3b.2):
// names (charset, length, unique case-insensitively with every facade alias),
// inputSchema present and an object schema, outputSchema an object schema
// when present, both compiling with jsonschema v6 (local $refs resolving).
// It returns the compiled tools in file order, or every problem found, each
// a located *toolset.InputError, joined.
func validateConfig(cfg *Config) ([]*compiledTool, error) {
	var errs []error
	add := func(t *ToolConfig, ptr, format string, args ...any) {
		p := t.PosOf(ptr)
		errs = append(errs, &toolset.InputError{Source: p.File, Offset: -1, Line: p.Line, Col: p.Col, Tool: t.Name, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
	}
	// Names, tools and aliases together, case-insensitively.
	type owner struct {
		tool  *ToolConfig
		alias bool
	}
	seen := map[string]owner{}
	claim := func(t *ToolConfig, name, ptr string, alias bool) {
		if why := validName(name); why != "" {
			add(t, ptr, "%s", why)
			return
		}
		key := strings.ToLower(name)
		if prev, ok := seen[key]; ok {
			what := func(o owner, n string) string {
				if o.alias {
					return fmt.Sprintf("alias %q of tool %q (%s)", n, o.tool.Name, o.tool.Pos)
				}
				return fmt.Sprintf("tool %q (%s)", n, o.tool.Pos)
			}
			prevName := prev.tool.Name
			if prev.alias {
				prevName = aliasNameFolded(prev.tool, key)
			}
			if prevName == name {
				add(t, ptr, "duplicate name %q: already used by %s", name, what(prev, prevName))
			} else {
				add(t, ptr, "name %q differs only in case from %s; names must be unique case-insensitively", name, what(prev, prevName))
			}
			return
		}
		seen[key] = owner{tool: t, alias: alias}
	}
	for _, t := range cfg.Tools {
		claim(t, t.Name, "/name", false)
	}
	for _, t := range cfg.Tools {
		if t.Facade == nil {
			continue
		}
		for i, a := range t.Facade.Aliases {
			claim(t, a.Name, fmt.Sprintf("/facade/aliases/%d", i), true)
		}
	}
	out := make([]*compiledTool, 0, len(cfg.Tools))
	for _, t := range cfg.Tools {
		ct := &compiledTool{cfg: t}
		in := t.Value.Get("inputSchema")
		switch {
		case in == nil:
			add(t, "", `tool has no "inputSchema" (MCP requires one; use {type: object} for a tool without arguments)`)
		case in.Kind == canon.Null:
			add(t, "/inputSchema", `"inputSchema" must not be null`)
		default:
			if why := objectSchema(in); why != "" {
				add(t, "/inputSchema", "inputSchema %s", why)
			} else if c, err := schema.Compile(in); err != nil {
				ptr := "/inputSchema" + schemaErrorPointer(err)
				add(t, ptr, "inputSchema does not compile: %v", err)
			} else {
				ct.in = c
			}
		}
		if o := t.Value.Get("outputSchema"); o != nil {
			if why := objectSchema(o); why != "" {
				add(t, "/outputSchema", "outputSchema %s", why)
			} else if c, err := schema.Compile(o); err != nil {
				add(t, "/outputSchema"+schemaErrorPointer(err), "outputSchema does not compile: %v", err)
			} else {
				ct.out = c
			}
		}
		out = append(out, ct)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// aliasNameFolded returns the alias of t whose lower case is key.
func aliasNameFolded(t *ToolConfig, key string) string {
	for _, a := range t.Facade.Aliases {
		if strings.ToLower(a.Name) == key {
			return a.Name
		}
	}
	return key
}

// objectSchema explains why s is not an object schema ({"type":"object"},
// MCP 2025-11-25 Tool.inputSchema), or returns "".
func objectSchema(s *canon.Value) string {
	if s.Kind != canon.Object {
		return fmt.Sprintf("must be a JSON Schema object, got %s", s.Kind)
	}
	typ := s.Get("type")
	if typ == nil {
		return `must have "type": "object"`
	}
	if typ.Kind == canon.String && typ.Str == "object" {
		return ""
	}
	if typ.Kind == canon.Array && len(typ.Items) == 1 && typ.Items[0].Kind == canon.String && typ.Items[0].Str == "object" {
		return ""
	}
	return fmt.Sprintf(`must have "type": "object", got %s`, compactJSON(typ))
}

func compactJSON(v *canon.Value) string { return string(appendOrdered(nil, v)) }

// schemaErrorPointer extracts the keyword location ("at '/properties/x'")
// from a compile error, or "".
func schemaErrorPointer(err error) string {
	m := atPointer.FindStringSubmatch(err.Error())
	if m == nil || m[1] == "" || !strings.HasPrefix(m[1], "/") {
		return ""
	}
	return m[1]
}

var atPointer = regexp.MustCompile(`at '([^']*)'`)
