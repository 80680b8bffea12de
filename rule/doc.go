// Package rule is the one rule model of mcpctl: the catalog entry type
// shared by diff's tool and schema rules and lint's rules. Each rule is
// declared once, as a Rule value, by the package that finds it, with a
// typed ID, its kind, default level, direction, effect, tags and a
// one-sentence purpose; findings are emitted by that value, so a finding
// of an undeclared rule cannot compile.
//
// The catalog mcpctl rules prints and the README's rule table are the
// diff rules followed by the lint rules:
//
//	all := rule.Sorted(diff.Rules(), lint.Rules())
package rule
