package config

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/rule"
)

// Lint is the lint section of .mcpctl.yaml:
//
//	lint:
//	  rules:
//	    schema-draft: off        # error, warning or off
//	  ignore:
//	    - rule: schema-draft
//	      tool: "*"              # a tool name, or * for every tool
//	      path: /outputSchema    # optional JSON Pointer prefix
//	      reason: zod writes draft-07; our clients accept it
//	      expires: 2027-01-31    # optional
type Lint struct {
	// Levels maps a lint rule id to "error", "warning" or lint.LevelOff.
	Levels map[string]string
	// Ignores suppress matching lint findings.
	Ignores []lint.Ignore
}

// Apply fills o's Levels and Ignores from the section.
func (l *Lint) Apply(o *lint.Options) {
	o.Levels = l.Levels
	o.Ignores = append(o.Ignores, l.Ignores...)
}

// lintSection reads the lint: mapping.
func (p *parser) lintSection(n *yaml.Node, c *Config) {
	if isNull(n) {
		return
	}
	for _, kv := range p.pairs(n, "lint") {
		k, v := kv[0], kv[1]
		switch {
		case k.Value == "rules" && !isNull(v):
			c.Lint.Levels = map[string]string{}
			for _, r := range p.pairs(v, "lint: rules") {
				id := p.lintRuleID(r[0], "lint: rules")
				lv := p.scalar(r[1], "lint: rules: "+id)
				if err := lint.ValidateLevel(lv); err != nil && p.err == nil {
					p.fail(r[1], "lint: rules: %s: %v", id, err)
				}
				c.Lint.Levels[id] = lv
			}
		case k.Value == "ignore" && !isNull(v):
			if v.Kind != yaml.SequenceNode {
				p.fail(v, "lint: ignore must be a list of {%s}", strings.Join(ignoreKeys, ", "))
				continue
			}
			for i, item := range v.Content {
				c.Lint.Ignores = append(c.Lint.Ignores, p.lintIgnore(item, fmt.Sprintf("lint: ignore[%d]", i)))
			}
		case k.Value != "rules" && k.Value != "ignore":
			p.fail(k, "lint: unknown key %q (want %s)", k.Value, strings.Join(lintKeys, ", "))
		}
	}
}

func (p *parser) lintRuleID(n *yaml.Node, what string) string {
	id := p.scalar(n, what)
	if p.err == nil && p.kinds[id] != rule.Lint {
		p.fail(n, "%s: unknown lint rule id %q (see mcpctl lint --help)", what, id)
	}
	return id
}

// lintIgnore reads one lint ignore; the keys are those of a diff ignore
// (ignoreEntry), the rule a lint rule.
func (p *parser) lintIgnore(n *yaml.Node, what string) lint.Ignore {
	ig := p.ignoreEntry(n, what, p.lintRuleID)
	return lint.Ignore{Rule: ig.Rule, Tool: ig.Tool, Path: ig.Path, Reason: ig.Reason, Expires: ig.Expires}
}

// pointer reads an ignore's path: a JSON Pointer (RFC 6901).
func (p *parser) pointer(v *yaml.Node, what string) string {
	s := p.scalar(v, what+": path")
	if p.err == nil && s != "" && !strings.HasPrefix(s, "/") {
		p.fail(v, "%s: path %q is not a JSON Pointer (RFC 6901: empty or starting with /)", what, s)
	}
	return s
}

// reason reads an ignore's non-empty reason.
func (p *parser) reason(v *yaml.Node, what string) string {
	s := strings.TrimSpace(p.scalar(v, what+": reason"))
	if p.err == nil && s == "" {
		p.fail(v, "%s: reason must not be empty", what)
	}
	return s
}

// expiry reads an ignore's expires (a date, from 00:00 UTC, or an RFC 3339
// time) or its deprecated until (through the end of a date), warning about
// until; has holds the keys of the ignore seen so far, k included.
func (p *parser) expiry(k, v *yaml.Node, what string, has map[string]bool) time.Time {
	if has["expires"] && has["until"] {
		p.fail(k, "%s: until is the old name of expires; give expires only", what)
	}
	s := p.scalar(v, what+": "+k.Value)
	d, err := diff.ParseExpiry(s, k.Value == "until")
	if p.err == nil && err != nil {
		p.fail(v, "%s: %s: %v", what, k.Value, err)
	}
	if k.Value == "until" && err == nil {
		p.warn(k, "%s: until is deprecated; write expires: %s (the first day the ignore no longer applies)", what, diff.ExpiryText(d))
	}
	return d
}
