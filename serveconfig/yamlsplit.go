package serveconfig

import (
	"bytes"

	"github.com/mcpctl/mcpctl/internal/parallel"
	"go.yaml.in/yaml/v3"
)

// pieceLines is about how many lines of a long tools list one piece holds
// (see parseConfigYAML).
const pieceLines = 512

// parseConfigYAML parses a config document into yaml.v3 nodes, as
// yaml.Unmarshal does. yaml.v3 parses on one core, and a config of
// thousands of tools is mostly its tools list; so when the root's tools
// list is written in block style (a line "tools:" at the margin, then its
// entries as lines "- " at one indentation), the list is cut into pieces
// of whole entries, which are parsed on every core with the rest of the
// document (the list's lines blanked, so every line keeps its number) and
// grafted back. Anything unusual (a syntax error, an alias to an anchor in
// another piece, a quoted or flow value left open at a cut, directives,
// CR line ends) makes it parse the document whole instead, so the nodes
// (and errors) are always those of one yaml.Unmarshal
// (TestParseConfigYAMLSameAsWhole, FuzzParseConfigYAML).
func parseConfigYAML(data []byte) (*yaml.Node, error) {
	return parseConfigYAMLIn(data, pieceLines)
}

func parseConfigYAMLIn(data []byte, lines int) (*yaml.Node, error) {
	if cut, ok := cutToolsList(data, lines); ok {
		if doc, ok := cut.parse(); ok {
			return doc, nil
		}
	}
	var doc yaml.Node
	err := yaml.Unmarshal(data, &doc)
	return &doc, err
}

// toolsCut is a config document with its tools list cut into pieces.
type toolsCut struct {
	data       []byte
	toolsLine  int // 1-based line of "tools:"
	indent     int // column of the entries' "-", 0-based
	start, end int // byte offsets of the list's lines
	pieces     []piece
}

// piece is whole entries of the list: data[start:end], from line line.
type piece struct {
	start, end, line int
}

// cutToolsList finds the root's block-style tools list and cuts it into
// pieces of about lines lines; ok is false when the document does not
// have that shape.
func cutToolsList(data []byte, lines int) (toolsCut, bool) {
	c := toolsCut{data: data}
	if bytes.IndexByte(data, '\r') >= 0 || bytes.HasPrefix(data, []byte("%")) {
		return c, false
	}
	off, line := 0, 1
	for ; off < len(data); line++ {
		l, next := lineAt(data, off)
		if line > 1 && (hasDirective(l) || bytes.HasPrefix(l, []byte("%"))) {
			return c, false
		}
		if c.toolsLine == 0 && isToolsKey(l) {
			c.toolsLine, c.start = line, next
		} else if c.toolsLine != 0 && c.pieces == nil && !blankOrComment(l) {
			if !c.openList(l) {
				return c, false
			}
		} else if c.pieces != nil && !blankOrComment(l) {
			if done, ok := c.next(l, off, line, lines); done {
				c.end = off
				return c, ok && c.rest(data[off:])
			}
		}
		off = next
	}
	c.end = len(data)
	return c, c.pieces != nil
}

// openList starts the list at its first line l: it must be an entry, "-"
// followed by a space or nothing.
func (c *toolsCut) openList(l []byte) bool {
	n := indentOf(l)
	if !isEntry(l[n:]) {
		return false
	}
	// The first piece holds the comments and blank lines before the
	// entry too: no byte of the document goes unparsed.
	c.indent = n
	c.pieces = []piece{{start: c.start, line: c.toolsLine + 1}}
	return true
}

// next handles line l of the list: a new entry may start a new piece;
// done when l ends the list (ok only if it is back at the margin).
func (c *toolsCut) next(l []byte, off, line, lines int) (done, ok bool) {
	n := indentOf(l)
	switch {
	case n > c.indent:
		return false, true
	case n == c.indent && isEntry(l[n:]):
		if p := &c.pieces[len(c.pieces)-1]; line-p.line >= lines {
			p.end = off
			c.pieces = append(c.pieces, piece{start: off, line: line})
		}
		return false, true
	}
	return true, n == 0
}

// rest checks what follows the list: root keys only, no second tools key
// written the same way (one cut list per document).
func (c *toolsCut) rest(data []byte) bool {
	for off := 0; off < len(data); {
		l, next := lineAt(data, off)
		if isToolsKey(l) {
			return false
		}
		off = next
	}
	return true
}

// parse parses the rest of the document and the pieces on every core and
// grafts the pieces' entries in as the tools list; ok is false when any
// part fails or does not fit.
func (c *toolsCut) parse() (*yaml.Node, bool) {
	c.pieces[len(c.pieces)-1].end = c.end
	docs := make([]yaml.Node, len(c.pieces)+1)
	failed := make([]bool, len(docs))
	parallel.Each(len(docs), func(i int) {
		var text []byte
		if i == 0 {
			text = c.rootText()
		} else {
			p := c.pieces[i-1]
			text = c.data[p.start:p.end]
		}
		failed[i] = yaml.Unmarshal(text, &docs[i]) != nil
	})
	for _, f := range failed {
		if f {
			return nil, false
		}
	}
	value := c.toolsValue(&docs[0])
	if value == nil {
		return nil, false
	}
	list := yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for i, p := range c.pieces {
		d := &docs[i+1]
		if len(d.Content) != 1 || d.Content[0].Kind != yaml.SequenceNode || d.Content[0].Column != c.indent+1 {
			return nil, false
		}
		shiftLines(d.Content[0], p.line-1)
		if i == 0 {
			list.Line, list.Column = d.Content[0].Line, d.Content[0].Column
		}
		list.Content = append(list.Content, d.Content[0].Content...)
	}
	*value = list
	return &docs[0], true
}

// rootText is the document with the list's lines blanked (their line
// feeds kept).
func (c *toolsCut) rootText() []byte {
	out := make([]byte, 0, len(c.data)-(c.end-c.start)+bytes.Count(c.data[c.start:c.end], []byte{'\n'}))
	out = append(out, c.data[:c.start]...)
	out = append(out, bytes.Repeat([]byte{'\n'}, bytes.Count(c.data[c.start:c.end], []byte{'\n'}))...)
	return append(out, c.data[c.end:]...)
}

// toolsValue returns the value node of the root's key "tools" written at
// toolsLine, if it is the only such key and its value is empty (the
// blanked list).
func (c *toolsCut) toolsValue(doc *yaml.Node) *yaml.Node {
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value != "tools" {
			continue
		}
		if found != nil || k.Line != c.toolsLine || k.Column != 1 || k.Style != 0 ||
			v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null" || v.Value != "" || v.Anchor != "" {
			return nil
		}
		found = v
	}
	return found
}

// shiftLines adds by to the line of n and of every node under it.
func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, k := range n.Content {
		shiftLines(k, by)
	}
}

// lineAt returns the line at off (without its line feed) and the offset
// of the next.
func lineAt(data []byte, off int) ([]byte, int) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return data[off:], len(data)
	}
	return data[off : off+i], off + i + 1
}

// isToolsKey reports whether l is "tools:" at the margin, with nothing
// after it but spaces and a comment.
func isToolsKey(l []byte) bool {
	rest, ok := bytes.CutPrefix(l, []byte("tools:"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	return len(rest) == 0 || (rest[0] == '#' && len(rest) < len(l)-len("tools:"))
}

// isEntry reports whether s (a line from its first non-space) starts a
// sequence entry.
func isEntry(s []byte) bool {
	return len(s) > 0 && s[0] == '-' && (len(s) == 1 || s[1] == ' ')
}

// hasDirective reports whether l is a document marker (--- or ...).
func hasDirective(l []byte) bool {
	for _, m := range [][]byte{[]byte("---"), []byte("...")} {
		if rest, ok := bytes.CutPrefix(l, m); ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t') {
			return true
		}
	}
	return false
}

func blankOrComment(l []byte) bool {
	t := bytes.TrimLeft(l, " ")
	return len(t) == 0 || t[0] == '#'
}

func indentOf(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " ")) }
