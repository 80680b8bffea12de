package diff

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// This file holds the MCP validity checks diff needs for rule tool-invalid
// (DESIGN §3b.2). The lint package owns the full set; diff will call it once
// it exists.

// problem is one way a tool is invalid MCP: Path is a JSON Pointer into the
// tool object, Msg says what is wrong. schemaGone marks the problems that
// rule input-schema-removed reports instead when the old side had an input
// schema.
type problem struct {
	Path       string
	Msg        string
	schemaGone bool
}

// maxNameLen is the longest tool name MCP allows (2025-11-25, Tool.name).
const maxNameLen = 128

// validName reports whether name is 1–128 characters of A–Z a–z 0–9 _ - .
// and, when not, why.
func validName(name string) (string, bool) {
	if name == "" {
		return "name is empty", false
	}
	if len(name) > maxNameLen {
		return fmt.Sprintf("name is %d characters long, more than %d", len(name), maxNameLen), false
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Sprintf("name has %q at byte %d; allowed are A-Z a-z 0-9 _ - .", r, i), false
		}
	}
	return "", true
}

// toolProblems lists why tool t (raw, not normalized) is invalid MCP, in a
// fixed order; nil when it is valid. Schemas named in noCompile are not
// compiled (the caller knows the answer already).
func toolProblems(t *canon.Value, noCompile map[string]bool) []problem {
	var out []problem
	if msg, ok := validName(canon.ToolName(t)); !ok {
		out = append(out, problem{Path: "/name", Msg: msg})
	}
	out = append(out, schemaProblems(t, "inputSchema", true, !noCompile["inputSchema"])...)
	out = append(out, schemaProblems(t, "outputSchema", false, !noCompile["outputSchema"])...)
	return out
}

// schemaProblems checks the schema member key of a tool: present (when
// required), an object, with "type": "object", compiling (when compile).
func schemaProblems(t *canon.Value, key string, required, compile bool) []problem {
	ptr := "/" + key
	s := t.Get(key)
	switch {
	case s == nil && !required:
		return nil
	case s == nil:
		return []problem{{Path: ptr, Msg: key + " is missing", schemaGone: true}}
	case s.Kind == canon.Null:
		return []problem{{Path: ptr, Msg: key + " is null, not an object schema", schemaGone: true}}
	case s.Kind != canon.Object:
		return []problem{{Path: ptr, Msg: fmt.Sprintf("%s is a %s, not an object schema", key, s.Kind), schemaGone: true}}
	}
	var out []problem
	switch ty := s.Get("type"); {
	case ty == nil:
		out = append(out, problem{Path: ptr, Msg: fmt.Sprintf(`%s has no "type": "object" (MCP requires an object schema)`, key)})
	case ty.Kind != canon.String || ty.Str != "object":
		out = append(out, problem{Path: ptr + "/type", Msg: fmt.Sprintf(`%s "type" is %s, want "object"`, key, canon.AppendJCS(nil, ty))})
	}
	if !compile {
		return out
	}
	if _, err := schema.Compile(s); err != nil {
		out = append(out, problem{Path: ptr, Msg: fmt.Sprintf("%s does not compile: %s", key, errorText(err))})
	}
	return out
}

// caseCollisions returns, per tool name, the earlier name of the set that
// equals it case-insensitively (MCP names must be unique that way).
func caseCollisions(s *toolset.Set) map[string]string {
	seen := map[string]string{}
	out := map[string]string{}
	for _, t := range s.Tools {
		k := strings.ToLower(t.Name)
		if first, ok := seen[k]; ok {
			out[t.Name] = first
			continue
		}
		seen[k] = t.Name
	}
	return out
}

// invalidFindings reports, as rule tool-invalid, every problem of the new
// side's tools that the same tool on the old side did not have (a tool that
// stays equally invalid is not news; a schema identical on both sides is
// not compiled again). skipSchemaGone names tools whose missing input
// schema is reported by input-schema-removed instead.
func invalidFindings(old, new *toolset.Set, skipSchemaGone map[string]bool) []Change {
	var out []Change
	oldCollide, newCollide := caseCollisions(old), caseCollisions(new)
	for _, nt := range new.Tools {
		ot := old.Lookup(nt.Name)
		same := map[string]bool{}
		if ot != nil {
			for _, k := range []string{"inputSchema", "outputSchema"} {
				same[k] = sameValue(ot.Value.Get(k), nt.Value.Get(k))
			}
		}
		probs := toolProblems(&nt.Value, same)
		if first, ok := newCollide[nt.Name]; ok && oldCollide[nt.Name] != first {
			probs = append(probs, problem{Path: "/name", Msg: fmt.Sprintf("name equals %q case-insensitively (names must be unique ignoring case)", first)})
		}
		if len(probs) == 0 {
			continue
		}
		had := map[string]bool{}
		if ot != nil {
			for _, p := range toolProblems(&ot.Value, same) {
				had[p.Path+"\x00"+p.Msg] = true
			}
		}
		for _, p := range probs {
			if had[p.Path+"\x00"+p.Msg] || (p.schemaGone && skipSchemaGone[nt.Name]) {
				continue
			}
			c := newChange("tool-invalid", nt.Name, p.Path)
			if v := pointerGet(&nt.Value, p.Path); v != nil {
				c.New = jcs(v)
			}
			c.Message = "invalid MCP: " + p.Msg
			out = append(out, c)
		}
	}
	return out
}

// pointerGet resolves a JSON Pointer of object keys (no array indexes)
// inside v; nil when absent.
func pointerGet(v *canon.Value, ptr string) *canon.Value {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		v = v.Get(tok)
		if v == nil {
			return nil
		}
	}
	return v
}

// oneLine folds a multi-line error message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// errorText renders a validator or compiler error on one line, the same
// way on every run: jsonschema builds some error lists by iterating Go maps
// (the causes under "properties", the names in "additional properties …
// not allowed"), so a validation error is rendered as its leaf messages,
// sorted, and a compile error (which arrives as text) has its " - at "
// parts after the first sorted.
func errorText(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		parts := strings.Split(oneLine(err.Error()), " - at ")
		if len(parts) > 2 {
			slices.Sort(parts[1:])
		}
		return strings.Join(parts, " - at ")
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			slices.Sort(k.Properties)
		}
		if len(e.Causes) == 0 {
			leaves = append(leaves, oneLine(e.Error()))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(leaves)
	return strings.Join(slices.Compact(leaves), "; ")
}
