package lint

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/rule"
	"github.com/mcpctl/mcpctl/toolset"
)

// Severity says whether a finding makes a tool invalid MCP (SeverityError,
// docs/lint.md#invalid-mcp) or only risks rejection by real clients (SeverityWarning,
// docs/lint.md#rejected-by-real-clients).
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// The profiles Options.Profile accepts.
const (
	ProfileDefault = "default"
	ProfileStrict  = "strict"
)

// Options configures Check.
type Options struct {
	// Profile is ProfileDefault ("" means the same) or ProfileStrict, which
	// adds the rules whose Rule.Profile is "strict". Check treats any other
	// value as ProfileDefault; callers validate user input with Validate.
	Profile string
	// Levels overrides the severity of rules by id: "error", "warning"
	// or LevelOff (the rule's findings are dropped). See ValidateLevel.
	Levels map[string]string
	// Ignores mark matching findings Ignored; they stay in the result
	// but do not count.
	Ignores []Ignore
	// Now decides which ignores have expired; zero means time.Now.
	Now time.Time
}

// Validate returns an error when Profile is not one Check knows.
func (o Options) Validate() error {
	switch o.Profile {
	case "", ProfileDefault, ProfileStrict:
		return nil
	}
	return fmt.Errorf("unknown lint profile %q (want %q or %q)", o.Profile, ProfileDefault, ProfileStrict)
}

// Finding is one problem with one tool. Pointer is an RFC 6901 JSON Pointer
// into the tool object (e.g. "/inputSchema/properties/x/$ref"); Rule is a
// stable kebab-case id from Rules.
//
// File, Line and Col say where the value at Pointer was written, when the
// source is a file (a serve config's YAML included); Line and Col are
// 1-based, 0 when unknown. Ignored findings matched an Options.Ignores
// entry and do not count.
type Finding struct {
	Severity     Severity `json:"severity"`
	Rule         string   `json:"rule"`
	Tool         string   `json:"tool"`
	Pointer      string   `json:"pointer"`
	Message      string   `json:"message"`
	File         string   `json:"file,omitempty"`
	Line         int      `json:"line,omitempty"`
	Col          int      `json:"col,omitempty"`
	Ignored      bool     `json:"ignored,omitempty"`
	IgnoreReason string   `json:"ignoreReason,omitempty"`
}

// Position is FILE:LINE:COL (FILE:LINE, FILE) as far as it is known, or ""
// when the finding has no file.
func (f Finding) Position() string {
	switch {
	case f.File == "":
		return ""
	case f.Line == 0:
		return f.File
	case f.Col == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
}

// String renders the finding on one line: `error name-invalid: tool "x" at
// /name: message`.
func (f Finding) String() string {
	return fmt.Sprintf("%s %s: tool %q at %s: %s", f.Severity, f.Rule, f.Tool, pointerOrRoot(f.Pointer), f.Message)
}

func pointerOrRoot(p string) string {
	if p == "" {
		return `""`
	}
	return p
}

// The rule ids. They are stable: never renamed once released.
const (
	RuleNameInvalid            = "name-invalid"
	RuleNameDuplicate          = "name-duplicate"
	RuleInputSchemaMissing     = "input-schema-missing"
	RuleInputSchemaNotObject   = "input-schema-not-object"
	RuleOutputSchemaNotObject  = "output-schema-not-object"
	RuleSchemaInvalid          = "schema-invalid"
	RuleRefUnresolved          = "ref-unresolved"
	RuleRefNotLocal            = "ref-not-local"
	RuleNameTooLong            = "name-too-long"
	RuleNameDotOrSlash         = "name-dot-or-slash"
	RuleNameSanitizedCollision = "name-sanitized-collision"
	RuleNameCaseCollision      = "name-case-collision"
	RuleInputRootCombinator    = "input-root-combinator"
	RuleSchemaDraft            = "schema-draft"
	RuleObjectOpen             = "object-open"
)

// Rule is one lint rule in the one rule model diff and lint share: kind
// rule.Lint, its id, default level ("error" or "warning"), the profile
// that enables it ("" = every profile) and one sentence of purpose.
type Rule = rule.Rule

// lintRule declares one lint rule of the catalog.
func lintRule(id string, sev Severity, profile, purpose string) Rule {
	return Rule{ID: rule.ID(id), Kind: rule.Lint, Level: rule.Level(sev), Profile: profile, Purpose: purpose}
}

// The rules, declared once; findings are emitted by these values.
var (
	rNameInvalid = lintRule(RuleNameInvalid, SeverityError, "",
		"A tool name must be 1 to 128 characters long and use only A-Z a-z 0-9, underscore, hyphen and dot (MCP 2025-11-25, Tool names).")
	rNameDuplicate = lintRule(RuleNameDuplicate, SeverityError, "",
		"Tool names must be unique within a server (MCP 2025-11-25, Tool names); both tools are reported.")
	rInputSchemaMissing = lintRule(RuleInputSchemaMissing, SeverityError, "",
		"Every tool must have an inputSchema that is present and not null.")
	rInputSchemaNotObject = lintRule(RuleInputSchemaNotObject, SeverityError, "",
		`The inputSchema must be a JSON object with "type": "object" at its root, since arguments are always an object.`)
	rOutputSchemaNotObject = lintRule(RuleOutputSchemaNotObject, SeverityError, "",
		`An outputSchema, when present, must be a JSON object with "type": "object" at its root, since structuredContent is always an object.`)
	rSchemaInvalid = lintRule(RuleSchemaInvalid, SeverityError, "",
		"inputSchema and outputSchema must compile as JSON Schema of the draft their $schema names (2020-12 when absent).")
	rRefUnresolved = lintRule(RuleRefUnresolved, SeverityError, "",
		"Every local $ref (#, #/json/pointer, #anchor) must resolve inside its schema.")
	rRefNotLocal = lintRule(RuleRefNotLocal, SeverityError, "",
		"A $ref must point inside its own schema: mcpctl, like most clients, never fetches other documents.")
	rNameTooLong = lintRule(RuleNameTooLong, SeverityWarning, "",
		"Names over 64 characters are rejected by model APIs that limit function names to 64.")
	rNameDotOrSlash = lintRule(RuleNameDotOrSlash, SeverityWarning, "",
		`Names containing "." or "/" are rejected by model APIs that allow only A-Z a-z 0-9 _ - in function names.`)
	rNameCaseCollision = lintRule(RuleNameCaseCollision, SeverityWarning, "",
		"Names equal ignoring case (get_user, Get_User) are distinct tools to MCP, whose names are case-sensitive (2025-11-25, Tool names), but clients and model APIs that fold case confuse them.")
	rNameSanitizedCollision = lintRule(RuleNameSanitizedCollision, SeverityWarning, "",
		"Names that become equal once characters outside A-Z a-z 0-9 _ - are replaced (get.user, get_user) collide in clients that sanitize names.")
	rInputRootCombinator = lintRule(RuleInputRootCombinator, SeverityWarning, "",
		"A root anyOf, oneOf or allOf in an inputSchema is rejected by model APIs that require a plain object schema at the root.")
	rSchemaDraft = lintRule(RuleSchemaDraft, SeverityWarning, "",
		"A $schema other than JSON Schema 2020-12 (MCP's default dialect) may be rejected or misread by clients.")
	rObjectOpen = lintRule(RuleObjectOpen, SeverityWarning, ProfileStrict,
		`Every object schema in an inputSchema should say "additionalProperties": false, as strict-mode model APIs require (strict profile only); advice for new tools, since closing a published object is breaking in diff.`)
)

var rules = []Rule{
	rNameInvalid, rNameDuplicate, rInputSchemaMissing, rInputSchemaNotObject, rOutputSchemaNotObject, rSchemaInvalid, rRefUnresolved, rRefNotLocal, rNameTooLong, rNameDotOrSlash, rNameCaseCollision, rNameSanitizedCollision, rInputRootCombinator, rSchemaDraft, rObjectOpen,
}

// Rules returns the lint rule catalog, errors first, in a fixed order.
func Rules() []Rule { return slices.Clone(rules) }

// ValidateTool returns the errors (docs/lint.md#invalid-mcp) of one tool on its own: an
// invalid name, a missing or non-object inputSchema, a non-object
// outputSchema, a schema that does not compile (schema.Compile; an anchor or
// $id declared twice is reported here too, at its own pointer), a local $ref
// that does not resolve, a $ref to another document. Uniqueness needs the
// whole set and is checked by Check. The result is sorted like Check's and is
// empty for a valid tool.
func ValidateTool(t *toolset.Tool) []Finding {
	c := collector{tool: t.Name}
	c.validate(t)
	locateIn(t, c.out)
	sortFindings(c.out)
	return c.out
}

// Check lints a tool set: the errors of ValidateTool for every tool, names
// unique across the set, and the client-compatibility
// warnings of docs/lint.md#rejected-by-real-clients (RuleObjectOpen only under ProfileStrict). Findings
// are sorted by tool name (RFC 8785 order, as in the set), then pointer, then
// rule, then message. Each finding is located with Tool.Locate when the
// tool has it; opts.Levels and opts.Ignores are applied last. A nil set has
// no findings.
func Check(set *toolset.Set, opts Options) []Finding {
	if set == nil {
		return nil
	}
	var out []Finding
	for _, t := range set.Tools {
		c := collector{tool: t.Name}
		c.validate(t)
		c.warn(t, opts)
		out = append(out, c.out...)
	}
	out = append(out, checkNames(set.Tools)...)
	locate(set, out)
	sortFindings(out)
	return applyPolicy(out, opts)
}

// HasErrors reports whether any finding that is not ignored has
// SeverityError.
func HasErrors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == SeverityError && !f.Ignored })
}

func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			canon.CompareKeys(a.Tool, b.Tool),
			cmp.Compare(a.Pointer, b.Pointer),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// collector gathers the findings of one tool.
type collector struct {
	tool string
	out  []Finding
}

func (c *collector) add(r Rule, ptr, format string, args ...any) {
	c.out = append(c.out, newFinding(r, c.tool, ptr, fmt.Sprintf(format, args...)))
}

// newFinding is a finding of rule r at its default level.
func newFinding(r Rule, tool, ptr, msg string) Finding {
	return Finding{Severity: Severity(r.Level), Rule: string(r.ID), Tool: tool, Pointer: ptr, Message: msg}
}

func (c *collector) validate(t *toolset.Tool) {
	if msg := nameError(t.Name); msg != "" {
		c.add(rNameInvalid, "/name", "%s", msg)
	}
	c.validateSchema(t.Value.Get("inputSchema"), "inputSchema", true)
	c.validateSchema(t.Value.Get("outputSchema"), "outputSchema", false)
}

func (c *collector) warn(t *toolset.Tool, opts Options) {
	c.warnName(t.Name)
	in := t.InputSchema()
	if in != nil && in.Kind == canon.Object {
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if in.Has(k) {
				c.add(rInputRootCombinator, "/inputSchema/"+k,
					`"inputSchema" has %q at its root; model APIs that require a plain object schema reject it: move the alternatives into properties (for example one optional property per variant, or an enum discriminator) and keep "type": "object" at the root`, k)
			}
		}
		if opts.Profile == ProfileStrict {
			c.warnOpen(in)
		}
	}
	for _, key := range []string{"inputSchema", "outputSchema"} {
		c.warnDraft(t.Value.Get(key), key)
	}
}
