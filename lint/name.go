package lint

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/toolset"
)

// Name limits (MCP 2025-11-25, Tool names; docs/lint.md#lint-validity-and-client-compatibility).
const (
	MaxNameLen      = 128 // characters, a hard MCP limit
	PortableNameLen = 64  // characters, the limit of common model APIs
)

// ValidName returns nil when name is a valid MCP tool name (1 to 128
// characters of A-Z a-z 0-9 _ - .), or an error saying what is wrong and
// suggesting a valid name. serve uses it for facade aliases too.
func ValidName(name string) error {
	if msg := nameError(name); msg != "" {
		return errors.New(msg)
	}
	return nil
}

func mcpNameChar(r rune) bool { return portableNameChar(r) || r == '.' }

func portableNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// sanitize replaces every character outside A-Z a-z 0-9 _ - with "_", as
// clients that sanitize tool names for model APIs do.
func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if portableNameChar(r) {
			return r
		}
		return '_'
	}, name)
}

// suggestName returns a valid, portable name close to name.
func suggestName(name string, limit int) string {
	s := sanitize(name)
	if len(s) > limit {
		s = s[:limit]
	}
	if s == "" {
		s = "tool"
	}
	return s
}

func nameError(name string) string {
	n := utf8.RuneCountInString(name)
	if n == 0 {
		return "name is empty; MCP requires 1 to 128 characters of A-Z a-z 0-9 _ - ."
	}
	var problems []string
	if n > MaxNameLen {
		problems = append(problems, fmt.Sprintf("is %d characters long (MCP allows at most %d)", n, MaxNameLen))
	}
	if bad := badChars(name, mcpNameChar); bad != "" {
		problems = append(problems, "contains "+bad+" (MCP allows only A-Z a-z 0-9 _ - .)")
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("name %q %s: rename the tool, e.g. to %q", name, strings.Join(problems, " and "), suggestName(name, MaxNameLen))
}

// badChars lists, once each and in order, the characters of name that ok
// rejects, quoted with their code points ("/" U+002F), at most five.
func badChars(name string, ok func(rune) bool) string {
	var seen []rune
	for _, r := range name {
		if ok(r) || slices.Contains(seen, r) {
			continue
		}
		seen = append(seen, r)
	}
	if len(seen) == 0 {
		return ""
	}
	var parts []string
	for i, r := range seen {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(seen)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%q (U+%04X)", string(r), r))
	}
	return strings.Join(parts, ", ")
}

func (c *collector) warnName(name string) {
	if n := utf8.RuneCountInString(name); n > PortableNameLen {
		c.add(rNameTooLong, "/name",
			"name %q is %d characters long; model APIs that limit function names to %d characters reject it: shorten it, e.g. to %q",
			name, n, PortableNameLen, suggestName(name, PortableNameLen))
	}
	if bad := badChars(name, func(r rune) bool { return r != '.' && r != '/' }); bad != "" {
		c.add(rNameDotOrSlash, "/name",
			"name %q contains %s; model APIs that allow only A-Z a-z 0-9 _ - in function names reject it: rename it, e.g. to %q",
			name, bad, suggestName(name, MaxNameLen))
	}
}

// checkNames finds equal names (errors), names equal ignoring case and names
// equal once sanitized and compared ignoring case (warnings: MCP 2025-11-25
// says tool names SHOULD be case-sensitive, so they are distinct tools that
// case-folding clients confuse), reporting every tool of a group.
func checkNames(tools []*toolset.Tool) []Finding {
	var out []Finding
	exact := groupBy(tools, func(t *toolset.Tool) string { return t.Name })
	folded := groupBy(tools, func(t *toolset.Tool) string { return strings.ToLower(t.Name) })
	for _, t := range tools {
		if len(exact[t.Name]) > 1 {
			out = append(out, newFinding(rNameDuplicate, t.Name, "/name",
				fmt.Sprintf("name %q is used by %d tools; MCP requires tool names to be unique within a server: rename all but one", t.Name, len(exact[t.Name]))))
		}
		var others []string
		for _, o := range folded[strings.ToLower(t.Name)] {
			if o.Name != t.Name && !slices.Contains(others, o.Name) {
				others = append(others, o.Name)
			}
		}
		if len(others) == 0 {
			continue
		}
		out = append(out, newFinding(rNameCaseCollision, t.Name, "/name",
			fmt.Sprintf("name %q equals %s ignoring case; MCP tool names are case-sensitive, so these are distinct tools, but clients and model APIs that fold case confuse them (and mcpctl serve refuses them): rename one if such clients matter",
				t.Name, quoteList(others))))
	}
	sanitized := groupBy(tools, func(t *toolset.Tool) string { return strings.ToLower(sanitize(t.Name)) })
	for _, t := range tools {
		var others []string
		for _, o := range sanitized[strings.ToLower(sanitize(t.Name))] {
			// Names equal ignoring case are already a name-case-collision.
			if !strings.EqualFold(o.Name, t.Name) {
				others = append(others, o.Name)
			}
		}
		if len(others) == 0 {
			continue
		}
		out = append(out, newFinding(rNameSanitizedCollision, t.Name, "/name",
			fmt.Sprintf(`name %q becomes %q once characters outside A-Z a-z 0-9 _ - are replaced with "_" (as clients that sanitize names do), and so does %s: rename one so they stay distinct`,
				t.Name, sanitize(t.Name), quoteList(others))))
	}
	return out
}

func groupBy(tools []*toolset.Tool, key func(*toolset.Tool) string) map[string][]*toolset.Tool {
	m := make(map[string][]*toolset.Tool, len(tools))
	for _, t := range tools {
		k := key(t)
		m[k] = append(m[k], t)
	}
	return m
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
