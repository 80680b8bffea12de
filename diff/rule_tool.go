package diff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// toolRules are the rules about a tool as a whole and its documentation
// members (docs/diff.md#direction direction "tool", docs/diff.md#levels-and-rules).
var (
	ruleToolAdded = diffRule("tool-added", Safe, ToolD, []string{"existence"},
		"A new tool is offered; no existing call can break.")
	ruleToolRemoved = diffRule("tool-removed", Breaking, ToolD, []string{"existence"},
		"A tool disappeared with no rename or consolidation that a facade could route its calls to, so every call to it fails.")
	ruleToolRenamed = diffRule("tool-renamed", Facade, ToolD, []string{"existence"},
		"A removed tool reappears under a name of the same style key, or as the only tool with its identical input schema, with arguments that match one to one up to case style, accept the old types and require nothing new, so an alias carries its calls.")
	ruleToolConsolidated = diffRule("tool-consolidated", Facade, ToolD, []string{"existence", "values"},
		"A removed tool's calls fit another tool once a constant discriminator argument (method, action, operation, …) naming the old tool is injected, so an alias with inject carries them.")
	ruleToolInvalid = diffRule("tool-invalid", Breaking, ToolD, []string{"structure"},
		"A tool of the new side is invalid MCP (name, input or output schema, docs/lint.md#invalid-mcp), which clients and the gate must never accept.")
	ruleInputSchemaRemoved = diffRule("input-schema-removed", Breaking, Input, []string{"existence", "structure"},
		"An input schema became absent, null or not a JSON object, so the tool's arguments are no longer described at all.")
	ruleInputSchemaAdded = diffRule("input-schema-added", Safe, Input, []string{"existence", "structure"},
		"An input schema object appears where the old tool had none (absent, null or not a JSON object, which MCP does not allow): the arguments are described now, and the new schema is compared with {\"type\":\"object\"} (any arguments object), so constraints it adds are reported too.")
	ruleTitleChanged = diffRule("title-changed", Safe, ToolD, []string{"documentation"},
		"The tool's display title changed, which only affects what people see.")
	ruleDescriptionChanged = diffRule("description-changed", Safe, ToolD, []string{"documentation"},
		"The tool's description changed; calls still work, but descriptions steer the model, so it carries a notice.")
	ruleDescriptionDeprecated = diffRule("description-deprecated", Safe, ToolD, []string{"documentation", "lifecycle"},
		"The tool's description newly says the tool is deprecated, a notice that callers should migrate before it is removed.")
	ruleIconsChanged = diffRule("icons-changed", Safe, ToolD, []string{"documentation"},
		"The tool's icons changed, which only affects what people see.")
	ruleExecutionChanged = diffRule("execution-changed", Safe, ToolD, []string{"structure"},
		"The tool's execution properties (such as taskSupport) changed in a way that plain calls still work with.")
	ruleTaskSupportRequired = diffRule("task-support-required", Breaking, ToolD, []string{"structure"},
		"The tool's execution.taskSupport became \"required\", so clients that call it without task augmentation are refused.")
	ruleMetaChanged = diffRule("meta-changed", Safe, ToolD, []string{"documentation"},
		"A member of the tool's _meta changed; calls still work, but hosts and clients may read _meta, so it carries a notice.")
	ruleToolMemberChanged = diffRule("tool-member-changed", Safe, ToolD, []string{"structure"},
		"A tool member that no other rule covers (an extension field) was added, removed or changed.")
)

// toolRules lists them for the catalog.
var toolRules = []Rule{
	ruleToolAdded, ruleToolRemoved, ruleToolRenamed, ruleToolConsolidated, ruleToolInvalid, ruleInputSchemaRemoved, ruleInputSchemaAdded, ruleTitleChanged, ruleDescriptionChanged, ruleDescriptionDeprecated, ruleIconsChanged, ruleExecutionChanged, ruleTaskSupportRequired, ruleMetaChanged, ruleToolMemberChanged,
}

// knownMembers are the tool members other rules compare.
var knownMembers = map[string]bool{
	"name": true, "title": true, "description": true, "inputSchema": true,
	"outputSchema": true, "annotations": true, "execution": true, "icons": true,
	"_meta": true,
}

// defaultTaskSupport is execution.taskSupport when absent (MCP 2025-11-25,
// ToolExecution).
const defaultTaskSupport = "forbidden"

// deprecatedMarker finds a description that calls its tool deprecated.
var deprecatedMarker = regexp.MustCompile(`(?i)\bdeprecated\b`)

// documentationChanges compares title, description and icons.
func documentationChanges(name string, ov, nv *canon.Value) []Change {
	var out []Change
	if o, n := ov.Get("title"), nv.Get("title"); !sameValue(o, n) {
		c := newChange(ruleTitleChanged, name, "/title")
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = "title " + describeChange(o, n)
		out = append(out, c)
	}
	od, nd := ov.Get("description"), nv.Get("description")
	if !sameValue(od, nd) {
		if hit := deprecationSentence(nd); hit != "" && deprecationSentence(od) == "" {
			c := newChange(ruleDescriptionDeprecated, name, "/description")
			c.Old, c.New = jcs(od), jcs(nd)
			c.Message = "description now marks the tool deprecated"
			addNotice(&c, fmt.Sprintf("deprecation: %s says %q; callers should move off it before it is removed", name, hit))
			out = append(out, c)
		} else {
			c := newChange(ruleDescriptionChanged, name, "/description")
			c.Old, c.New = jcs(od), jcs(nd)
			c.Message = "description " + describeChange(od, nd)
			addNotice(&c, "descriptions steer the model: review the new text, it changes when and how models call this tool")
			out = append(out, c)
		}
	}
	if o, n := ov.Get("icons"), nv.Get("icons"); !sameValue(o, n) {
		c := newChange(ruleIconsChanged, name, "/icons")
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = "icons " + describeChange(o, n)
		out = append(out, c)
	}
	return out
}

// deprecationSentence returns the sentence of a string value that holds
// the deprecation marker, or "".
func deprecationSentence(v *canon.Value) string {
	if v == nil || v.Kind != canon.String {
		return ""
	}
	loc := deprecatedMarker.FindStringIndex(v.Str)
	if loc == nil {
		return ""
	}
	start := strings.LastIndexAny(v.Str[:loc[0]], ".!?\n") + 1
	end := len(v.Str)
	if i := strings.IndexAny(v.Str[loc[1]:], "\n"); i >= 0 {
		end = loc[1] + i
	}
	// Stop after the sentence that follows the marker ("DEPRECATED: Use x
	// instead.").
	if i := strings.IndexAny(v.Str[loc[1]:end], ".!?"); i >= 0 {
		end = loc[1] + i + 1
	}
	s := strings.TrimSpace(v.Str[start:end])
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// executionChanges compares execution (taskSupport against its default,
// other members as a whole).
func executionChanges(name string, ov, nv *canon.Value) []Change {
	var out []Change
	oe, ne := ov.Get("execution"), nv.Get("execution")
	ot, nt := taskSupport(oe), taskSupport(ne)
	if ot != nt {
		r := ruleExecutionChanged
		if nt == "required" {
			r = ruleTaskSupportRequired
		}
		c := newChange(r, name, "/execution/taskSupport")
		c.Old, c.New = jsonString(ot), jsonString(nt)
		c.Message = fmt.Sprintf("execution.taskSupport %q -> %q", ot, nt)
		if r.ID == ruleTaskSupportRequired.ID {
			c.Message += ": calls without task augmentation are refused"
		}
		out = append(out, c)
	}
	if o, n := withoutMember(oe, "taskSupport"), withoutMember(ne, "taskSupport"); !sameValue(o, n) {
		c := newChange(ruleExecutionChanged, name, "/execution")
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = "execution " + describeChange(o, n)
		out = append(out, c)
	}
	return out
}

// taskSupport returns execution.taskSupport, or its default.
func taskSupport(exec *canon.Value) string {
	if ts := exec.Get("taskSupport"); ts != nil && ts.Kind == canon.String {
		return ts.Str
	}
	return defaultTaskSupport
}

// withoutMember returns a copy of the object v without key, or nil when
// nothing else remains (or v is nil).
func withoutMember(v *canon.Value, key string) *canon.Value {
	if v == nil {
		return nil
	}
	if v.Kind != canon.Object {
		return v
	}
	c := v.Clone()
	c.Delete(key)
	if len(c.Members) == 0 {
		return nil
	}
	return &c
}

// metaChanges compares _meta member by member; the lifecycle key is left
// to the lifecycle rules.
func metaChanges(name string, ov, nv *canon.Value) []Change {
	om, nm := ov.Get("_meta"), nv.Get("_meta")
	if (om != nil && om.Kind != canon.Object) || (nm != nil && nm.Kind != canon.Object) {
		if sameValue(om, nm) {
			return nil
		}
		c := newChange(ruleMetaChanged, name, "/_meta")
		c.Old, c.New = jcs(om), jcs(nm)
		c.Message = "_meta " + describeChange(om, nm)
		addNotice(&c, metaNotice)
		return []Change{c}
	}
	var out []Change
	for _, k := range unionKeys(om, nm) {
		if k == deprecatedKey {
			continue
		}
		o, n := om.Get(k), nm.Get(k)
		if sameValue(o, n) {
			continue
		}
		c := newChange(ruleMetaChanged, name, "/_meta/"+canon.EscapePointer(k))
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = fmt.Sprintf("_meta %q %s", k, describeChange(o, n))
		addNotice(&c, metaNotice)
		out = append(out, c)
	}
	return out
}

const metaNotice = "_meta is read by hosts and clients (UI hints, routing, policy): check what consumes this key"

// otherMemberChanges reports tool members no rule knows.
func otherMemberChanges(name string, ov, nv *canon.Value) []Change {
	var out []Change
	for _, k := range unionKeys(ov, nv) {
		if knownMembers[k] {
			continue
		}
		o, n := ov.Get(k), nv.Get(k)
		if sameValue(o, n) {
			continue
		}
		c := newChange(ruleToolMemberChanged, name, "/"+canon.EscapePointer(k))
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = fmt.Sprintf("member %q %s", k, describeChange(o, n))
		out = append(out, c)
	}
	return out
}

// unionKeys returns the member names of two objects (either may be nil),
// sorted by canon.CompareKeys.
func unionKeys(a, b *canon.Value) []string {
	seen := map[string]bool{}
	var keys []string
	for _, v := range []*canon.Value{a, b} {
		if v == nil || v.Kind != canon.Object {
			continue
		}
		for _, m := range v.Members {
			if !seen[m.Key] {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
		}
	}
	sortKeys(keys)
	return keys
}

// describeChange says "added", "removed" or "changed".
func describeChange(o, n *canon.Value) string {
	switch {
	case o == nil:
		return "added"
	case n == nil:
		return "removed"
	}
	return "changed"
}

// inputSchemaGone reports whether the old tool had an input schema object
// and the new one has none, a null, or a non-object.
func inputSchemaGone(ov, nv *canon.Value) bool {
	o, n := ov.Get("inputSchema"), nv.Get("inputSchema")
	return o != nil && o.Kind == canon.Object && (n == nil || n.Kind != canon.Object)
}

// inputSchemaArrived reports whether the old tool had no input schema
// object (absent, null, or a non-object) and the new one has one.
func inputSchemaArrived(ov, nv *canon.Value) bool {
	o, n := ov.Get("inputSchema"), nv.Get("inputSchema")
	return (o == nil || o.Kind != canon.Object) && n != nil && n.Kind == canon.Object
}

// anyArguments is what a missing input schema leaves a client to send: any
// arguments object (MCP 2025-11-25, CallToolRequest params.arguments).
var anyArguments = canon.ObjectValue(canon.Member{Key: "type", Value: canon.StringValue("object")})

// inputSchemaAdded is the finding for inputSchemaArrived.
func inputSchemaAdded(name string, ov, nv *canon.Value) Change {
	c := newChange(ruleInputSchemaAdded, name, "")
	c.Old, c.New = jcs(ov.Get("inputSchema")), jcs(nv.Get("inputSchema"))
	c.Message = "inputSchema is now a schema object: the arguments are described (the old tool was invalid MCP)"
	return c
}

// inputSchemaRemoved is the finding for inputSchemaGone.
func inputSchemaRemoved(name string, ov, nv *canon.Value) Change {
	n := nv.Get("inputSchema")
	c := newChange(ruleInputSchemaRemoved, name, "")
	c.Old, c.New = jcs(ov.Get("inputSchema")), jcs(n)
	what := "is missing"
	if n != nil {
		what = "is " + n.Kind.String()
	}
	c.Message = "inputSchema " + what + ": the arguments are no longer described (invalid MCP)"
	c.NoWitness = "no new schema to reject a witness"
	return c
}
