package serve

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/internal/parallel"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// compiledTool is a validated tool: its schemas compiled.
type compiledTool struct {
	cfg *serveconfig.ToolConfig
	in  *schema.Compiled
	out *schema.Compiled // nil without an outputSchema
	// tool is the tool set entry lint checked (Config.setTool), nil when
	// the tool was not linted again.
	tool *toolset.Tool
}

// validateConfig checks every tool of cfg for MCP validity (docs/lint.md#invalid-mcp):
// names and facade aliases (lint.ValidName; unique case-insensitively, all
// together: MCP only asks names to be case-sensitive, but a gate serving two
// names that case-folding clients confuse would route their calls to the
// wrong tool), and each tool as lint.ValidateTool sees it (inputSchema present
// and an object schema, outputSchema an object schema when present, schemas
// compiling with jsonschema v6, local $refs resolving); then compiles the
// schemas for serving.
// It returns the compiled tools in file order, or every problem found, each
// a located *toolset.InputError, joined.
//
// A tool whose served bytes equal those of the same tool in prev (the live
// generation, or nil) was valid there: it is not linted again and its
// compiled schemas are reused (schema compilation is most of a build).
func validateConfig(cfg *serveconfig.Config, prev *Generation) ([]*compiledTool, error) {
	errs := checkNames(cfg)
	out, toolErrs := validateTools(cfg, prev)
	errs = append(errs, toolErrs...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// checkNames checks the names of cfg's tools and facade aliases, all
// together: each valid (lint.ValidName) and unique case-insensitively.
func checkNames(cfg *serveconfig.Config) []error {
	var errs []error
	seen := map[string]nameOwner{}
	claim := func(t *serveconfig.ToolConfig, name, ptr string, alias bool) {
		if err := claimName(seen, nameOwner{tool: t, alias: alias}, name, ptr); err != nil {
			errs = append(errs, err)
		}
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
	return errs
}

// nameOwner is what claimed a name: a tool, or an alias of it.
type nameOwner struct {
	tool  *serveconfig.ToolConfig
	alias bool
}

// describe names o as the owner of n, located.
func (o nameOwner) describe(n string) string {
	if o.alias {
		return fmt.Sprintf("alias %q of tool %q (%s)", n, o.tool.Name, o.tool.Pos)
	}
	if o.tool.Upstream != "" {
		return fmt.Sprintf("tool %q of upstream %q (%s)", n, o.tool.Upstream, o.tool.Pos)
	}
	return fmt.Sprintf("tool %q (%s)", n, o.tool.Pos)
}

// claimName records name (at ptr in o's tool) in seen, by its lower
// case; it returns the error of an invalid name or of one already seen.
func claimName(seen map[string]nameOwner, o nameOwner, name, ptr string) error {
	t := o.tool
	if err := lint.ValidName(name); err != nil {
		return toolError(t, ptr, "%v (%s)", err, lint.RuleNameInvalid)
	}
	key := strings.ToLower(name)
	prev, ok := seen[key]
	if !ok {
		seen[key] = o
		return nil
	}
	prevName := prev.tool.Name
	if prev.alias {
		prevName = aliasNameFolded(prev.tool, key)
	}
	if prevName == name {
		return toolError(t, ptr, "duplicate name %q: already used by %s%s", name, prev.describe(prevName), collisionRemedy(t))
	}
	return toolError(t, ptr, "name %q differs only in case from %s; MCP names are case-sensitive (2025-11-25, Tool names), but serve refuses names equal ignoring case: clients and model APIs that fold case would call the wrong tool (%s)%s", name, prev.describe(prevName), lint.RuleNameCaseCollision, collisionRemedy(t))
}

// collisionRemedy is what an operator can do when an upstream's tool t
// takes a name already used ("" for the config's own tools).
func collisionRemedy(t *serveconfig.ToolConfig) string {
	if t.Handler == nil || t.Handler.Upstream == nil {
		return ""
	}
	return fmt.Sprintf("; give upstream %q a prefix of its own (prefix:), or leave its tool out with tools: {exclude: [%s]}", t.Upstream, t.Handler.Upstream.Tool)
}

// validateTools checks each tool on its own: MCP validity as `mcpctl lint`
// checks it, then its schemas compiled for serving right away, while the
// compile cache still holds what lint compiled (a config with more
// schemas than the cache holds would otherwise compile each one twice).
// Tools are independent here, so they are checked on every core; the
// errors keep the tools' order.
func validateTools(cfg *serveconfig.Config, prev *Generation) ([]*compiledTool, []error) {
	out := make([]*compiledTool, len(cfg.Tools))
	toolErrs := make([][]error, len(cfg.Tools))
	parallel.Each(len(cfg.Tools), func(i int) {
		out[i], toolErrs[i] = validateTool(cfg, cfg.Tools[i], prev)
	})
	var errs []error
	for _, e := range toolErrs {
		errs = append(errs, e...)
	}
	return out, errs
}

// validateTool lints and compiles t, or reuses its compiled schemas from
// prev when its served bytes are unchanged there.
func validateTool(cfg *serveconfig.Config, t *serveconfig.ToolConfig, prev *Generation) (*compiledTool, []error) {
	ct := &compiledTool{cfg: t}
	if pt := prev.unchangedTool(t); pt != nil {
		ct.in, ct.out = pt.in, pt.out
		return ct, nil
	}
	var errs []error
	add := func(t *serveconfig.ToolConfig, ptr, format string, args ...any) {
		errs = append(errs, toolError(t, ptr, "%s%s", fmt.Sprintf(format, args...), upstreamRemedy(t)))
	}
	st, err := cfg.SetTool(t)
	if err != nil {
		add(t, "", "rendering the tool: %v", err) // a bug
		return ct, errs
	}
	ct.tool = st
	if lintTool(st, t, add); len(errs) == 0 {
		compileTool(ct, add)
	}
	return ct, errs
}

// unchangedTool returns g's tool of t's name when its served bytes equal
// t's, else nil (also for a nil g).
func (g *Generation) unchangedTool(t *serveconfig.ToolConfig) *liveTool {
	if g == nil {
		return nil
	}
	if pt := g.tools[t.Name]; pt != nil && pt.raw != nil && bytes.Equal(pt.raw, t.Raw) {
		return pt
	}
	return nil
}

// lintTool adds the MCP validity errors of st, the set entry of t, as
// `mcpctl lint` finds them (names aside: validateConfig checks them,
// aliases included).
func lintTool(st *toolset.Tool, t *serveconfig.ToolConfig, add func(t *serveconfig.ToolConfig, ptr, format string, args ...any)) {
	for _, f := range lint.ValidateTool(st) {
		if f.Severity != lint.SeverityError || f.Rule == lint.RuleNameInvalid {
			continue
		}
		add(t, f.Pointer, "%s (%s)", f.Message, f.Rule)
	}
}

// compileTool compiles ct's schemas, adding an error for each that does not
// compile.
func compileTool(ct *compiledTool, add func(t *serveconfig.ToolConfig, ptr, format string, args ...any)) {
	t := ct.cfg
	if c, err := schema.Compile(t.Value.Get("inputSchema")); err != nil {
		add(t, "/inputSchema"+schemaErrorPointer(err), "inputSchema does not compile: %v", err)
	} else {
		ct.in = c
	}
	if o := t.Value.Get("outputSchema"); o != nil {
		if c, err := schema.Compile(o); err != nil {
			add(t, "/outputSchema"+schemaErrorPointer(err), "outputSchema does not compile: %v", err)
		} else {
			ct.out = c
		}
	}
}

// aliasNameFolded returns the alias of t whose lower case is key.
func aliasNameFolded(t *serveconfig.ToolConfig, key string) string {
	for _, a := range t.Facade.Aliases {
		if strings.ToLower(a.Name) == key {
			return a.Name
		}
	}
	return key
}

// schemaErrorPointer returns the JSON Pointer, inside the schema, of the
// value a compile error is about (schema.CompileError.Pointer), or "".
func schemaErrorPointer(err error) string {
	var ce *schema.CompileError
	if errors.As(err, &ce) {
		return ce.Pointer
	}
	return ""
}

// upstreamRemedy is what an operator can do about an invalid tool of an
// upstream they do not own ("" for the config's own tools): lint's advice
// is for the schema's author.
func upstreamRemedy(t *serveconfig.ToolConfig) string {
	if t.Handler == nil || t.Handler.Upstream == nil {
		return ""
	}
	name := t.Handler.Upstream.Tool
	return fmt.Sprintf("; it is the upstream's tool %q: leave it out with tools: {exclude: [%s]}, or run a release of the server whose tool is valid", name, name)
}

// toolError is a validation error of tool t at ptr, located in its file.
func toolError(t *serveconfig.ToolConfig, ptr, format string, args ...any) error {
	p := t.PosOf(ptr)
	msg := fmt.Sprintf(format, args...)
	if t.Upstream != "" {
		msg = fmt.Sprintf("upstream %q: %s", t.Upstream, msg)
	}
	return posError(t, p, ptr, msg)
}

// posError is an error of tool t at ptr, located at p.
func posError(t *serveconfig.ToolConfig, p serveconfig.Pos, ptr, msg string) error {
	return &toolset.InputError{Source: p.File, Offset: -1, Line: p.Line, Col: p.Col, Tool: t.Name, Pointer: ptr, Msg: msg}
}
