package facade

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/internal/keydoc"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/internal/yamlnode"
)

// ErrInvalid is wrapped by every error about an unreadable or invalid facade
// file.
var ErrInvalid = errors.New("invalid facade file")

// FileError is a located problem in a facade file: the file, the line and
// column (1-based, 0 when unknown) and what is wrong.
type FileError struct {
	Path      string
	Line, Col int
	Msg       string
	Err       error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Unwrap returns ErrInvalid and the cause, if any.
func (e *FileError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// CoerceTypes are the type names Block.Coerce accepts.
var CoerceTypes = []string{"string", "number", "integer", "boolean", "array"}

// LoadFile reads the facade file at path (docs/config.md#facade-file): YAML
// or JSON, either a map from tool name to Block or a serve config, whose
// tools' facade blocks are taken (`tools: [{name, facade}, …]`). Unknown
// keys, duplicate keys, an alias without a name and an unknown coerce type
// are errors with the line and column. Errors wrap ErrInvalid (*FileError).
func LoadFile(path string) (File, error) {
	data, err := safefile.Read(path, safefile.Limits{})
	if err != nil {
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	return Parse(path, data)
}

// Parse reads a facade file's bytes; name is used in errors. See LoadFile.
func Parse(name string, data []byte) (File, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return File{}, nil
		}
		return nil, &FileError{Path: name, Msg: strings.TrimPrefix(err.Error(), "yaml: "), Err: err}
	}
	p := parser{name: name}
	f := p.file(&doc)
	if p.err != nil {
		return nil, p.err
	}
	return f, nil
}

// ParseBlock reads one facade block (docs/config.md#facade-file: rename,
// defaults, coerce, values, aliases) from the YAML node n, with exactly the
// checks and messages Parse applies to each block of a facade file. tool
// names the block's tool in messages; name is the file the node was read
// from. Errors are *FileError (wrapping ErrInvalid) at the Line and Column
// of the offending node, as recorded in n and its children.
func ParseBlock(name string, n *yaml.Node, tool string) (Block, error) {
	p := parser{name: name}
	b := p.block(n, tool)
	if p.err != nil {
		return Block{}, p.err
	}
	return b, nil
}

type parser struct {
	name string
	err  error
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	if p.err == nil {
		p.err = &FileError{Path: p.name, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
	}
}

// pairs returns a mapping's key/value pairs (yamlnode.Pairs), recording
// its error.
func (p *parser) pairs(n *yaml.Node, what string) [][2]*yaml.Node {
	ps, err := yamlnode.Pairs(n, what)
	if err != nil && p.err == nil {
		p.fail(&yaml.Node{Line: err.Line, Column: err.Col}, "%s", err.Msg)
	}
	return ps
}

func (p *parser) file(doc *yaml.Node) File {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return File{}
		}
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return File{}
	}
	f := File{}
	ps := p.pairs(root, "a facade file (tool name → facade block)")
	// A serve config: a "tools" sequence.
	for _, kv := range ps {
		if kv[0].Value == "tools" && kv[1].Kind == yaml.SequenceNode {
			return p.serveConfig(kv[1])
		}
	}
	for _, kv := range ps {
		if kv[0].Value == "" {
			p.fail(kv[0], "empty tool name")
		}
		f[kv[0].Value] = p.block(kv[1], kv[0].Value)
	}
	return f
}

// serveConfig takes the facade blocks of a serve config's tools.
func (p *parser) serveConfig(tools *yaml.Node) File {
	f := File{}
	for _, t := range tools.Content {
		var name string
		var fb *yaml.Node
		for _, kv := range p.pairs(t, "a tool") {
			switch kv[0].Value {
			case "name":
				name = kv[1].Value
			case "facade":
				fb = kv[1]
			}
		}
		if fb == nil || (fb.Kind == yaml.ScalarNode && fb.Tag == "!!null") {
			continue
		}
		if name == "" {
			p.fail(t, "a tool with a facade has no name")
			continue
		}
		if _, dup := f[name]; dup {
			p.fail(t, "two tools named %q", name)
			continue
		}
		f[name] = p.block(fb, name)
	}
	return f
}

// locations is the key type of mappings whose keys are argument
// locations.
const locations = "Keys are argument names or JSON Pointers (RFC 6901) into the arguments."

// BlockKey documents a facade block, in a facade file (tool name → block)
// or as a serve config tool's facade: the parser's unknown-key messages,
// the JSON Schemas under docs/schema and docs/config.md come from it.
var BlockKey = keydoc.Key{Type: keydoc.Object, Doc: "How calls made to the old contract are translated to the new one.", Keys: []keydoc.Key{
	{Name: "rename", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.String}, Doc: "Old argument location → new location. " + locations},
	{Name: "defaults", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Any}, Doc: "Values filled in when the argument is missing. " + locations},
	{Name: "coerce", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.String, Enum: CoerceTypes}, Doc: "The type an argument is converted to. " + locations},
	{Name: "values", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Any}}, Doc: "Per argument, old enum values → new values. " + locations},
	{Name: "aliases", Type: keydoc.Array, Doc: "Old tool names routed to this tool: a name, or a mapping with translations for calls under that name.",
		Items: &keydoc.Key{Type: keydoc.AnyOf, Alternatives: []keydoc.Key{{Type: keydoc.String}, aliasKey}}},
}}

var aliasKey = keydoc.Key{Type: keydoc.Object, Keys: []keydoc.Key{
	{Name: "name", Type: keydoc.String, Required: true, Doc: "The old tool name."},
	{Name: "inject", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Any}, Doc: "Constant arguments added to calls under the old name (a consolidated tool's discriminator). " + locations},
	{Name: "rename", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.String}, Doc: "As the block's rename, for calls under the old name only."},
	{Name: "defaults", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Any}, Doc: "As the block's defaults, for calls under the old name only."},
	{Name: "values", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Any}}, Doc: "As the block's values, for calls under the old name only."},
}}

// FileKey documents a facade file: tool name → facade block.
var FileKey = keydoc.Key{Type: keydoc.Map, Values: &BlockKey}

var blockKeys = keydoc.Names(BlockKey.Keys)
var aliasKeys = keydoc.Names(aliasKey.Keys)

func (p *parser) block(n *yaml.Node, tool string) Block {
	what := fmt.Sprintf("facade of %q", tool)
	for _, kv := range p.pairs(n, what) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "rename":
			p.renames(v, what+": rename")
		case "defaults":
			p.keys(v, what+": defaults")
		case "coerce":
			for _, c := range p.keys(v, what+": coerce") {
				if c[1].Kind != yaml.ScalarNode || !contains(CoerceTypes, c[1].Value) {
					p.fail(c[1], "%s: coerce %q: unknown type %q (want %s)", what, c[0].Value, c[1].Value, strings.Join(CoerceTypes, ", "))
				}
			}
		case "values":
			for _, m := range p.keys(v, what+": values") {
				p.pairs(m[1], fmt.Sprintf("%s: values of %q", what, m[0].Value))
			}
		case "aliases":
			p.aliases(v, what)
		default:
			p.fail(k, "%s: unknown key %q (want %s)", what, k.Value, strings.Join(blockKeys, ", "))
		}
	}
	var b Block
	if p.err == nil {
		if err := n.Decode(&b); err != nil {
			p.fail(n, "%s: %s", what, strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n", " "), "yaml: "))
		}
	}
	return b
}

func (p *parser) aliases(n *yaml.Node, what string) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s: aliases must be a list", what)
		return
	}
	for _, a := range n.Content {
		if a.Kind == yaml.ScalarNode {
			if a.Value == "" {
				p.fail(a, "%s: empty alias name", what)
			}
			continue
		}
		hasName := false
		for _, kv := range p.pairs(a, what+": alias") {
			switch kv[0].Value {
			case "name":
				hasName = kv[1].Kind == yaml.ScalarNode && kv[1].Value != ""
			case "inject", "defaults":
				p.keys(kv[1], what+": alias "+kv[0].Value)
			case "rename":
				p.renames(kv[1], what+": alias rename")
			case "values":
				for _, m := range p.keys(kv[1], what+": alias values") {
					p.pairs(m[1], fmt.Sprintf("%s: alias values of %q", what, m[0].Value))
				}
			default:
				p.fail(kv[0], "%s: alias: unknown key %q (want %s)", what, kv[0].Value, strings.Join(aliasKeys, ", "))
			}
		}
		if !hasName && p.err == nil {
			p.fail(a, "%s: an alias needs a name", what)
		}
	}
}

// keys is pairs for a mapping whose keys are argument locations (names or
// JSON Pointers): an invalid pointer is a located error.
func (p *parser) keys(n *yaml.Node, what string) [][2]*yaml.Node {
	ps := p.pairs(n, what)
	for _, kv := range ps {
		if _, err := parseKey(kv[0].Value); err != nil {
			p.fail(kv[0], "%s: %s", what, keyReason(err))
		}
	}
	return ps
}

// renames checks a rename mapping: both sides are locations, the new one a
// non-empty string.
func (p *parser) renames(n *yaml.Node, what string) {
	for _, r := range p.keys(n, what) {
		if r[1].Kind != yaml.ScalarNode || r[1].Value == "" {
			p.fail(r[1], "%s %q: the new name must be a string", what, r[0].Value)
			continue
		}
		if _, err := parseKey(r[1].Value); err != nil {
			p.fail(r[1], "%s %q: %s", what, r[0].Value, keyReason(err))
		}
	}
}

// keyReason is what parseKey found wrong with a key.
func keyReason(err error) string {
	if ke, ok := errors.AsType[*KeyError](err); ok {
		return ke.Reason
	}
	return err.Error()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
