package diff

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// This file turns the MCP validity checks of package lint (docs/lint.md#invalid-mcp)
// into findings of rule tool-invalid.

// problem is one way a tool is invalid MCP: Path is a JSON Pointer into the
// tool object, Msg says what is wrong. schemaGone marks the problems that
// rule input-schema-removed reports instead when the old side had an input
// schema (the inputSchema is absent, null or not a JSON object at all).
type problem struct {
	Path       string
	Msg        string
	schemaGone bool
}

// toolProblems lists why tool t is invalid MCP, as lint.ValidateTool finds
// it, in lint's order; nil when it is valid.
func toolProblems(t *toolset.Tool) []problem {
	var out []problem
	for _, f := range lint.ValidateTool(t) {
		p := problem{Path: f.Pointer, Msg: f.Message}
		if f.Pointer == "/inputSchema" && (f.Rule == lint.RuleInputSchemaMissing || f.Rule == lint.RuleInputSchemaNotObject) {
			in := t.Value.Get("inputSchema")
			p.schemaGone = in == nil || in.Kind != canon.Object
		}
		out = append(out, p)
	}
	return out
}

// invalidFindings reports, as rule tool-invalid, every problem of the new
// side's tools that the same tool on the old side did not have (a tool that
// stays equally invalid is not news; a schema identical on both sides is
// not compiled again). skipSchemaGone names tools whose missing input
// schema is reported by input-schema-removed instead.
func invalidFindings(old, new *toolset.Set, skipSchemaGone map[string]bool, sameTool func(a, b *toolset.Tool) bool) []Change {
	var out []Change
	for _, nt := range new.Tools {
		ot := old.Lookup(nt.Name)
		var probs, had []problem
		// A tool identical on both sides is as valid as it was: not news,
		// and not worth compiling its schemas again.
		if ot == nil || !sameTool(ot, nt) {
			probs = toolProblems(nt)
			if ot != nil && len(probs) > 0 {
				had = toolProblems(ot)
			}
		}
		if len(probs) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, p := range had {
			seen[p.Path+"\x00"+p.Msg] = true
		}
		for _, p := range probs {
			if seen[p.Path+"\x00"+p.Msg] || (p.schemaGone && skipSchemaGone[nt.Name]) {
				continue
			}
			c := newChange(ruleToolInvalid, nt.Name, p.Path)
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
		tok = canon.UnescapePointer(tok)
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
// sorted, and a compile error as the pointer and reason of its
// schema.CompileError (which sorts its reasons).
func errorText(err error) string {
	var ce *schema.CompileError
	if errors.As(err, &ce) {
		if ce.Pointer == "" {
			return oneLine(ce.Reason)
		}
		return fmt.Sprintf("at '%s': %s", ce.Pointer, oneLine(ce.Reason))
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return oneLine(err.Error())
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
