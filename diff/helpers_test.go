package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// decodeToolSet reads a tool set from JSON (a {"tools": …} document or a bare
// array).
func decodeToolSet(t testing.TB, source string, data []byte) *toolset.Set {
	t.Helper()
	s, err := toolset.Decode(source, data)
	if err != nil {
		t.Fatalf("decode %s: %v", source, err)
	}
	return s
}

// schemaOf returns a tool's schema in a direction, as witnesses are
// checked: canon-normalized, with the nullable dialect applied; nil when
// absent.
func schemaOf(s *toolset.Set, tool string, d Direction) *canon.Value {
	tl := s.Lookup(tool)
	if tl == nil {
		return nil
	}
	v := tl.Value.Clone()
	canon.NormalizeTool(&v)
	key := "inputSchema"
	if d == Output {
		key = "outputSchema"
	}
	sc := v.Get(key)
	if sc == nil || sc.Kind == canon.Null {
		return nil
	}
	c := sc.Clone()
	rewriteNullable(&c)
	return &c
}

// acceptsJSON validates instance against schema s (nil accepts everything).
func acceptsJSON(t testing.TB, s *canon.Value, instance json.RawMessage) bool {
	t.Helper()
	if s == nil {
		return true
	}
	c, err := schema.Compile(s)
	if err != nil {
		t.Fatalf("compile %s: %v", canon.AppendJCS(nil, s), err)
	}
	inst, err := schema.Decode(instance)
	if err != nil {
		t.Fatalf("decode witness %s: %v", instance, err)
	}
	return c.Valid(inst)
}

// witnessHolds reports whether w is a real witness for a finding of
// direction d on tool: for input, the old schema accepts it and the new
// one rejects it; for output, the reverse.
func witnessHolds(t testing.TB, old, new *toolset.Set, tool string, d Direction, w json.RawMessage) bool {
	t.Helper()
	os, ns := schemaOf(old, tool, d), schemaOf(new, tool, d)
	if d == Output {
		return acceptsJSON(t, ns, w) && !acceptsJSON(t, os, w)
	}
	return acceptsJSON(t, os, w) && !acceptsJSON(t, ns, w)
}

// checkWitnesses fails for every reported witness that is not one, and for
// every breaking or facade schema finding that has neither a witness nor a
// reason for lacking one.
func checkWitnesses(t testing.TB, old, new *toolset.Set, r *Report) {
	t.Helper()
	for _, c := range r.Changes {
		if c.Direction == ToolD {
			continue
		}
		has := len(c.Witness) > 0 && !bytes.Equal(c.Witness, []byte("null"))
		if has && !witnessHolds(t, old, new, c.Tool, c.Direction, c.Witness) {
			t.Errorf("%s %s %s %s: witness %s does not hold", c.Tool, c.Direction, c.Rule, c.Path, c.Witness)
		}
		if !has && c.Level >= Facade && c.NoWitness == "" && (c.Direction == Input || c.Direction == Output) {
			t.Errorf("%s %s %s %s: %s finding without witness or NoWitness", c.Tool, c.Direction, c.Rule, c.Path, c.Level)
		}
		if !witnessOrReason(c) {
			t.Errorf("%s %s %s %s: %s finding with neither a witness, nor undecided, nor a reason its rule documents (%s)\nold %s\nnew %s", c.Tool, c.Direction, c.Rule, c.Path, c.Level, c.NoWitness,
				jcsString(schemaOf(old, c.Tool, c.Direction)), jcsString(schemaOf(new, c.Tool, c.Direction)))
		}
		if c.Undecided && (c.Level != Breaking || c.Reason == "") {
			t.Errorf("%s %s %s: undecided finding must be breaking with a reason", c.Tool, c.Rule, c.Path)
		}
	}
}

// witnessOrReason reports whether a schema finding at facade level or above
// is backed: a witness, or marked undecided, or a NoWitness reason of a
// rule that documents one (schemaRuleDef.unvalidated). Other findings pass.
func witnessOrReason(c Change) bool {
	if c.Level < Facade || (c.Direction != Input && c.Direction != Output) {
		return true
	}
	d, ok := schemaRuleDefByID(c.Rule)
	if !ok {
		return true // a tool-level rule reported in a schema direction
	}
	return hasWitnessJSON(c) || c.Undecided || (c.NoWitness != "" && d.unvalidated)
}

// schemaRuleDefByID returns the schema rule definition of id.
func schemaRuleDefByID(id string) (*schemaRuleDef, bool) {
	loadSchemaCatalog()
	d, ok := schemaCatalogByID[id]
	return d, ok
}

// mentionsWord reports whether word appears in the finding's path, message or
// facade suggestion.
func mentionsWord(c Change, word string) bool {
	if strings.Contains(c.Path, word) || strings.Contains(c.Message, word) {
		return true
	}
	if c.Facade != nil {
		b, _ := json.Marshal(c.Facade)
		return bytes.Contains(b, []byte(word))
	}
	return false
}

// changeSummary renders findings for failure messages.
func changeSummary(r *Report) string {
	var b strings.Builder
	for _, c := range r.Changes {
		b.WriteString("\n  ")
		b.WriteString(strings.Join([]string{c.Level.String(), string(c.Direction), c.Tool, c.Rule, c.Path, c.Message}, " | "))
		if len(c.Witness) > 0 && string(c.Witness) != "null" {
			b.WriteString(" | witness " + string(c.Witness))
		}
		if c.NoWitness != "" {
			b.WriteString(" | no witness: " + c.NoWitness)
		}
	}
	return b.String()
}
