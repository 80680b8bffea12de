package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/internal/yamlnode"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/internal/keydoc"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/rule"
)

// FileName is the name Find looks for.
const FileName = ".mcpctl.yaml"

// ErrInvalid is wrapped by every error about an unreadable or invalid
// configuration file.
var ErrInvalid = errors.New("invalid configuration")

// Error is a located problem in a configuration file (line and column
// 1-based, 0 when unknown).
type Error struct {
	Path      string
	Line, Col int
	Msg       string
	Err       error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Unwrap returns ErrInvalid and the cause, if any.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Open-content policies: whether diff treats an optional property added to
// an open input schema (no additionalProperties: false) as safe (lenient)
// or breaking (strict, as --strict-open-content).
const (
	OpenContentLenient = "lenient"
	OpenContentStrict  = "strict"
)

// Config is a parsed .mcpctl.yaml.
type Config struct {
	// Path is the file it was read from.
	Path string
	// Levels overrides the default level of rules, by rule id.
	Levels map[string]diff.Level
	// Ignores suppress matching findings. Expires is the first instant an
	// ignore no longer applies: its "expires" date, 00:00 UTC.
	Ignores []diff.Ignore
	// OpenContent is OpenContentStrict, OpenContentLenient or "" (unset:
	// lenient).
	OpenContent string
	// Warnings are located notes about a file that still loads (a
	// deprecated key), "file:line:col: message".
	Warnings []string
	// Lint is the lint: section, lint's rule levels and ignores.
	Lint Lint
}

// Apply fills o from the configuration: level overrides, ignores, and
// StrictOpenContent when the policy is strict (it never clears a
// StrictOpenContent already set, e.g. by --strict-open-content).
func (c *Config) Apply(o *diff.Options) {
	if len(c.Levels) > 0 {
		if o.Levels == nil {
			o.Levels = map[string]diff.Level{}
		}
		for id, l := range c.Levels {
			o.Levels[id] = l
		}
	}
	o.Ignores = append(o.Ignores, c.Ignores...)
	if c.OpenContent == OpenContentStrict {
		o.StrictOpenContent = true
	}
}

// Expired returns the ignores that no longer apply at now.
func (c *Config) Expired(now time.Time) []diff.Ignore {
	var out []diff.Ignore
	for _, ig := range c.Ignores {
		if !ig.Expires.IsZero() && !now.Before(ig.Expires) {
			out = append(out, ig)
		}
	}
	return out
}

// Find looks for FileName in dir and its parents up to the filesystem root
// and returns its path, or "" when there is none. Errors other than "not
// found" (e.g. permission denied) are returned.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", FileName, err)
	}
	for {
		p := filepath.Join(dir, FileName)
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", &Error{Path: p, Msg: err.Error(), Err: err}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads the configuration at path, checking rule ids against catalog.
// Errors wrap ErrInvalid (*Error).
func Load(path string, catalog []diff.Rule) (*Config, error) {
	data, err := safefile.Read(path, safefile.Limits{})
	if err != nil {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	return Parse(path, data, catalog)
}

// Parse reads a configuration's bytes (name is used in errors), checking
// rule ids against catalog.
func Parse(name string, data []byte, catalog []diff.Rule) (*Config, error) {
	c := &Config{Path: name}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		return nil, &Error{Path: name, Msg: strings.TrimPrefix(err.Error(), "yaml: "), Err: err}
	}
	p := parser{name: name, kinds: map[string]rule.Kind{}}
	for _, r := range rule.Sorted(catalog, lint.Rules()) {
		p.kinds[string(r.ID)] = r.Kind
	}
	p.config(&doc, c)
	if p.err != nil {
		return nil, p.err
	}
	c.Warnings = p.warnings
	return c, nil
}

type parser struct {
	name string
	// kinds is the kind of every known rule id: the catalog's and lint's
	// (the lint: section's ids need no catalog).
	kinds    map[string]rule.Kind
	err      error
	warnings []string
}

func (p *parser) warn(n *yaml.Node, format string, args ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf("%s:%d:%d: %s", p.name, n.Line, n.Column, fmt.Sprintf(format, args...)))
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Path: p.name, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// pairs returns a mapping's key/value pairs (yamlnode.Pairs), recording
// its error.
func (p *parser) pairs(n *yaml.Node, what string) [][2]*yaml.Node {
	ps, err := yamlnode.Pairs(n, what)
	if err != nil && p.err == nil {
		p.fail(&yaml.Node{Line: err.Line, Column: err.Col}, "%s", err.Msg)
	}
	return ps
}

func (p *parser) scalar(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.fail(n, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *parser) ruleID(n *yaml.Node, what string) string {
	id := p.scalar(n, what)
	kind, ok := p.kinds[id]
	if p.err == nil && kind == rule.Lint {
		p.fail(n, "%s: %q is a lint rule: set its level or ignore it under lint: (lint: {rules: {%s: off}}, lint: {ignore: [...]})", what, id, id)
	}
	if p.err == nil && !ok {
		p.fail(n, "%s: unknown rule id %q (see mcpctl rules)", what, id)
	}
	return id
}

// Keys documents every key of .mcpctl.yaml: the parser's unknown-key
// messages, the JSON Schema docs/schema/mcpctl.schema.json and
// docs/config.md come from it.
var Keys = keydoc.Key{Type: keydoc.Object, Keys: []keydoc.Key{
	{Name: "rules", Type: keydoc.Map, Doc: "Per-rule level overrides of diff: a rule id (see `mcpctl rules`) and the level its findings get.",
		Values: &keydoc.Key{Type: keydoc.String, Enum: []string{"safe", "facade", "breaking"}}},
	{Name: "ignore", Type: keydoc.Array, Doc: "Findings diff reports but does not count, each with a reason and an optional expiry.",
		Items: &keydoc.Key{Type: keydoc.Object, Keys: ignoreKeyDocs("diff", "The rule id of the findings ignored.", "The tool whose findings are ignored.")}},
	{Name: "open-content", Type: keydoc.String, Enum: []string{OpenContentLenient, OpenContentStrict}, Default: OpenContentLenient,
		Doc: "Whether an optional property added to an input schema without `additionalProperties: false` is safe (lenient) or breaking (strict, as `--strict-open-content`)."},
	{Name: "lint", Type: keydoc.Object, Doc: "Lint's rule levels and ignores (`mcpctl lint`).", Keys: []keydoc.Key{
		{Name: "rules", Type: keydoc.Map, Doc: "Per-rule levels: a lint rule id (see `mcpctl lint --help`) and the level its findings get (off drops them).",
			Values: &keydoc.Key{Type: keydoc.String, Enum: []string{string(lint.SeverityError), string(lint.SeverityWarning), lint.LevelOff}}},
		{Name: "ignore", Type: keydoc.Array, Doc: "Lint findings reported as ignored, not counted, each with a reason and an optional expiry.",
			Items: &keydoc.Key{Type: keydoc.Object, Keys: ignoreKeyDocs("lint", "The lint rule id of the findings ignored.", "The tool whose findings are ignored, or * for every tool.")}},
	}},
}}

// ignoreKeyDocs are the keys of an ignore of diff or lint (what).
func ignoreKeyDocs(what, rule, tool string) []keydoc.Key {
	return []keydoc.Key{
		{Name: "rule", Type: keydoc.String, Required: true, Doc: rule},
		{Name: "tool", Type: keydoc.String, Required: true, Doc: tool},
		{Name: "path", Type: keydoc.String, Doc: "A JSON Pointer (RFC 6901) in the tool: findings there and below. Empty: everywhere in the tool."},
		{Name: "reason", Type: keydoc.String, Required: true, Doc: "Why the findings may be ignored (shown with every ignored finding)."},
		{Name: "expires", Type: keydoc.Date, Doc: "The day (from 00:00 UTC) or RFC 3339 time the ignore stops applying; " + what + " reports an expired ignore. Absent: never."},
		{Name: "until", Type: keydoc.Date, Deprecated: "expires", Doc: "The last day the ignore applies (the old name; `until: D` is `expires:` the day after D)."},
	}
}

var (
	topKeys    = keydoc.Names(Keys.Keys)
	ignoreKeys = keydoc.Names(keydoc.Find(Keys.Keys, "ignore").Items.Keys)
	lintKeys   = keydoc.Names(keydoc.Find(Keys.Keys, "lint").Keys)
)

func (p *parser) config(doc *yaml.Node, c *Config) {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return
		}
		root = root.Content[0]
	}
	if isNull(root) {
		return
	}
	for _, kv := range p.pairs(root, "the configuration") {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "rules":
			if isNull(v) {
				continue
			}
			c.Levels = map[string]diff.Level{}
			for _, r := range p.pairs(v, "rules") {
				id := p.ruleID(r[0], "rules")
				lv := p.scalar(r[1], fmt.Sprintf("rules: %s", id))
				l, err := diff.ParseLevel(lv)
				if p.err == nil && (err != nil || l == diff.LevelNone) {
					p.fail(r[1], "rules: %s: unknown level %q (want safe, facade or breaking)", id, lv)
				}
				c.Levels[id] = l
			}
		case "ignore":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				p.fail(v, "ignore must be a list of {%s}", strings.Join(ignoreKeys, ", "))
				continue
			}
			for i, item := range v.Content {
				c.Ignores = append(c.Ignores, p.ignore(item, i))
			}
		case "lint":
			p.lintSection(v, c)
		case "open-content":
			s := p.scalar(v, "open-content")
			if p.err == nil && s != OpenContentStrict && s != OpenContentLenient {
				p.fail(v, "open-content: unknown policy %q (want strict or lenient)", s)
			}
			c.OpenContent = s
		default:
			p.fail(k, "unknown key %q (want %s)", k.Value, strings.Join(topKeys, ", "))
		}
	}
}

func (p *parser) ignore(n *yaml.Node, i int) diff.Ignore {
	return p.ignoreEntry(n, fmt.Sprintf("ignore[%d]", i), p.ruleID)
}

// ignoreEntry reads the keys of one ignore, diff's or lint's: rule (read
// by ruleID), tool, path, reason and expires (until deprecated).
func (p *parser) ignoreEntry(n *yaml.Node, what string, ruleID func(*yaml.Node, string) string) diff.Ignore {
	var ig diff.Ignore
	has := map[string]bool{}
	for _, kv := range p.pairs(n, what) {
		k, v := kv[0], kv[1]
		has[k.Value] = true
		switch k.Value {
		case "rule":
			ig.Rule = ruleID(v, what+": rule")
		case "tool":
			ig.Tool = p.scalar(v, what+": tool")
		case "path":
			ig.Path = p.pointer(v, what)
		case "reason":
			ig.Reason = p.reason(v, what)
		case "expires", "until":
			ig.Expires = p.expiry(k, v, what, has)
		default:
			p.fail(k, "%s: unknown key %q (want %s)", what, k.Value, strings.Join(ignoreKeys, ", "))
		}
	}
	for _, req := range []string{"rule", "tool", "reason"} {
		if !has[req] && p.err == nil {
			p.fail(n, "%s: %s is required", what, req)
		}
	}
	return ig
}
