package serveconfig

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/canon"
)

// Pos is a place in a config file or an included file: 1-based line and
// column; Col is 0 when only the line is known, Line 0 when neither is.
type Pos struct {
	File string
	Line int
	Col  int
}

// String is FILE:LINE:COL, FILE:LINE or FILE, as much as is known.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// maxIncludeDepth bounds nested $file includes (an include cycle is reported
// before this is reached; the bound guards against very deep chains).
const maxIncludeDepth = 16

// converter turns yaml.v3 nodes (YAML or JSON text) into ordered canon
// values, resolving {$file: PATH} includes and remembering, for every JSON
// Pointer it produced, where in which file the value came from.
type converter struct {
	// readFile reads an include by its path as written relative to the
	// including file's folder (already joined); it is the only file access.
	readFile func(path string) ([]byte, error)
	// files collects every include read, in order, with its bytes; read1
	// indexes it by path.
	files []includedFile
	read1 map[string]int
	// places receives where every value and member key was written (nil:
	// nowhere).
	places *places
	stack  []string // include chain, for cycle detection
	// budget is how many more values may be produced; see docAllowance. The
	// converters of one document's tool entries share it.
	budget *atomic.Int64
	// charged, when set, is shared by the converters of one document's
	// tools: the includes whose values were added to the budget.
	charged *chargedSet
	// entry marks the converter of one tool entry converted side by side:
	// it counts the values it spent and lists what it was granted when
	// (see toolItems).
	entry  bool
	spent  int64
	grants []grant
	// depth is the nesting of the value being converted; expanding holds
	// the anchored nodes whose aliases are being expanded.
	depth     int
	expanding map[*yaml.Node]bool
}

// maxNesting bounds how deeply values nest (through aliases and includes
// too): JSON Pointers grow with depth, so an alias chain nesting a value
// a million levels deep would cost memory quadratic in its size.
const maxNesting = 1000

// Alias expansion bound: a document of n nodes as written may produce at
// most aliasFactor×n + aliasSlack values once its aliases are expanded
// (each YAML document read adds its share). Reusing a schema through an
// anchor stays far below it; seven levels of &a [*b,*b,…] (an alias bomb,
// 10^7 values from a few hundred bytes) are refused before they are built.
const (
	aliasFactor = 10
	aliasSlack  = 100_000
)

// docAllowance is the share of a YAML document (its root node) in the
// budget.
func docAllowance(doc *yaml.Node) int { return aliasFactor*countNodes(doc) + aliasSlack }

// spend takes n values from the budget; false when it is exhausted.
func (c *converter) spend(n int) bool {
	c.spent += int64(n)
	return c.budget.Add(int64(-n)) >= 0
}

// grant is n values added to the budget by the first read of the include
// at path.
type grant struct {
	at   int64 // values spent before it
	path string
	n    int
}

// grantFor adds n values to the budget for the first read of the include
// at path by this converter. The converters of the entries of one tools
// list add each include's share once (whichever reads it first), and
// each lists its grants, so that the budget of an in-order conversion
// can be worked out (see toolItems).
func (c *converter) grantFor(path string, n int) {
	if c.entry {
		c.grants = append(c.grants, grant{at: c.spent, path: path, n: n})
	}
	if c.charged.charge(path) {
		c.budget.Add(int64(n))
	}
}

type includedFile struct {
	Path string
	Data []byte
}

// convError is a located conversion problem.
type convError struct {
	Pos     Pos
	Pointer string
	Msg     string
}

func (e *convError) Error() string { return e.Pos.String() + ": " + e.Pointer + ": " + e.Msg }

func (c *converter) errorf(n *yaml.Node, file, ptr, format string, args ...any) error {
	return &convError{Pos: Pos{File: file, Line: n.Line, Col: n.Column}, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// record remembers where the value at ptr was written; the first place
// wins (an include's {$file: …} mapping, not the included document).
func (c *converter) record(ptr string, p Pos) {
	if c.places != nil {
		if _, ok := c.places.at[ptr]; !ok {
			c.places.at[ptr] = p
		}
	}
}

// recordKey remembers where the key of the member at ptr was written.
func (c *converter) recordKey(ptr string, p Pos) {
	if c.places != nil {
		if _, ok := c.places.key[ptr]; !ok {
			c.places.key[ptr] = p
		}
	}
}

// value converts n, found in file at pointer ptr.
func (c *converter) value(n *yaml.Node, file, ptr string) (canon.Value, error) {
	if !c.spend(1) {
		return canon.Value{}, c.errorf(n, file, ptr, "YAML aliases expand the document past %d values per node written (an alias bomb?): write the values out, or share them with $file", aliasFactor)
	}
	if c.depth++; c.depth > maxNesting {
		return canon.Value{}, c.errorf(n, file, ptr, "values nest deeper than %d levels", maxNesting)
	}
	defer func() { c.depth-- }()
	c.record(ptr, Pos{File: file, Line: n.Line, Col: n.Column})
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return canon.NullValue(), nil
		}
		return c.value(n.Content[0], file, ptr)
	case yaml.AliasNode:
		return c.alias(n, file, ptr)
	case yaml.SequenceNode:
		if c.sideBySide(ptr) {
			return c.toolItems(n, file, ptr)
		}
		return c.sequence(n, file, ptr)
	case yaml.MappingNode:
		if inc, ok := includeTarget(n); ok {
			return c.include(n, inc, file, ptr)
		}
		return c.mapping(n, file, ptr)
	case yaml.ScalarNode:
		return c.scalar(n, file, ptr)
	}
	return canon.Value{}, c.errorf(n, file, ptr, "unsupported YAML node")
}

// alias converts the value alias n refers to, refusing one that contains
// it.
func (c *converter) alias(n *yaml.Node, file, ptr string) (canon.Value, error) {
	if n.Alias == nil {
		return canon.Value{}, c.errorf(n, file, ptr, "unresolved alias *%s", n.Value)
	}
	if c.expanding[n.Alias] {
		return canon.Value{}, c.errorf(n, file, ptr, "alias *%s refers to a value that contains it", n.Value)
	}
	if c.expanding == nil {
		c.expanding = map[*yaml.Node]bool{}
	}
	c.expanding[n.Alias] = true
	defer delete(c.expanding, n.Alias)
	return c.value(n.Alias, file, ptr)
}

// sequence converts a sequence to an array.
func (c *converter) sequence(n *yaml.Node, file, ptr string) (canon.Value, error) {
	items := make([]canon.Value, 0, len(n.Content))
	for i, it := range n.Content {
		v, err := c.value(it, file, ptr+"/"+strconv.Itoa(i))
		if err != nil {
			return canon.Value{}, err
		}
		items = append(items, v)
	}
	return canon.Value{Kind: canon.Array, Items: items}, nil
}

// mapping converts a mapping to an object: string keys, each once, no
// merge keys.
func (c *converter) mapping(n *yaml.Node, file, ptr string) (canon.Value, error) {
	members := make([]canon.Member, 0, len(n.Content)/2)
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return canon.Value{}, c.errorf(k, file, ptr, "a mapping key must be a string")
		}
		if k.ShortTag() == "!!merge" {
			return canon.Value{}, c.errorf(k, file, ptr, "YAML merge keys (<<) are not supported; write the members out")
		}
		if line, dup := seen[k.Value]; dup {
			return canon.Value{}, c.errorf(k, file, ptr, "duplicate key %q (first at line %d)", k.Value, line)
		}
		seen[k.Value] = k.Line
		mp := ptr + "/" + canon.EscapePointer(k.Value)
		c.recordKey(mp, Pos{File: file, Line: k.Line, Col: k.Column})
		v, err := c.value(vn, file, mp)
		if err != nil {
			return canon.Value{}, err
		}
		members = append(members, canon.Member{Key: k.Value, Value: v})
	}
	return canon.Value{Kind: canon.Object, Members: members}, nil
}

// read returns the bytes of the include at path, reading each file once
// per config load (an include named twice, or through an alias, is one
// snapshot of the file, and is listed in files once); first reports the
// first read.
func (c *converter) read(path string) (data []byte, first bool, err error) {
	if i, ok := c.read1[path]; ok {
		return c.files[i].Data, false, nil
	}
	data, err = c.readFile(path)
	if err != nil {
		return nil, false, err
	}
	if c.read1 == nil {
		c.read1 = map[string]int{}
	}
	c.read1[path] = len(c.files)
	c.files = append(c.files, includedFile{Path: path, Data: data})
	return data, true, nil
}

// countValues counts the values of v (itself included).
func countValues(v *canon.Value) int {
	n := 1
	for i := range v.Items {
		n += countValues(&v.Items[i])
	}
	for i := range v.Members {
		n += countValues(&v.Members[i].Value)
	}
	return n
}

// countNodes counts the nodes of a YAML document as written (an alias is
// one node), to size the position maps once.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += countNodes(k)
	}
	return c
}

// includeTarget reports whether n is {$file: PATH}.
func includeTarget(n *yaml.Node) (string, bool) {
	if len(n.Content) != 2 || n.Content[0].Value != "$file" {
		return "", false
	}
	return n.Content[1].Value, n.Content[1].Kind == yaml.ScalarNode
}

// include reads {$file: PATH} relative to the folder of file.
func (c *converter) include(n *yaml.Node, rel, file, ptr string) (canon.Value, error) {
	if rel == "" {
		return canon.Value{}, c.errorf(n, file, ptr, "$file needs a path")
	}
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(file), rel)
	}
	for _, s := range c.stack {
		if s == path {
			return canon.Value{}, c.errorf(n, file, ptr, "$file include cycle: %s", strings.Join(append(c.stack, path), " -> "))
		}
	}
	if len(c.stack) >= maxIncludeDepth {
		return canon.Value{}, c.errorf(n, file, ptr, "$file includes nested deeper than %d", maxIncludeDepth)
	}
	data, first, err := c.read(path)
	if err != nil {
		return canon.Value{}, c.errorf(n, file, ptr, "$file %s: %v", rel, err)
	}
	c.stack = append(c.stack, path)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	if isJSONPath(path) {
		// JSON includes are read strictly, with byte offsets.
		v, err := canon.Parse(data)
		if err != nil {
			var se *canon.SyntaxError
			p := Pos{File: path}
			if errors.As(err, &se) {
				p.Line, p.Col = canon.LineCol(data, se.Offset)
				return canon.Value{}, &convError{Pos: p, Pointer: ptr, Msg: se.Msg}
			}
			return canon.Value{}, &convError{Pos: p, Pointer: ptr, Msg: err.Error()}
		}
		// Its values are charged like a YAML document's (an alias of the
		// include repeats them all).
		nv := countValues(&v)
		if first {
			c.grantFor(path, aliasFactor*nv)
		}
		if !c.spend(nv) {
			return canon.Value{}, c.errorf(n, file, ptr, "YAML aliases expand the document past %d values per node written (an alias bomb?): write the values out", aliasFactor)
		}
		c.recordJSON(&v, canon.NewLines(data), path, ptr)
		return canon.StripOffsets(v), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		se := syntaxError(path, data, err)
		se.Pointer = ptr
		return canon.Value{}, se
	}
	if first {
		c.grantFor(path, docAllowance(&doc))
	}
	return c.value(&doc, path, ptr)
}

// recordJSON records positions for every value of a JSON include, its
// line feeds indexed once (locating each value by scanning the file from
// its start made a large include cost its size squared).
func (c *converter) recordJSON(v *canon.Value, data *canon.Lines, file, ptr string) {
	if c.places == nil {
		return
	}
	line, col := data.LineCol(v.Start)
	c.record(ptr, Pos{File: file, Line: line, Col: col})
	switch v.Kind {
	case canon.Array:
		for i := range v.Items {
			c.recordJSON(&v.Items[i], data, file, ptr+"/"+strconv.Itoa(i))
		}
	case canon.Object:
		for i := range v.Members {
			m := &v.Members[i]
			mp := ptr + "/" + canon.EscapePointer(m.Key)
			kl, kc := data.LineCol(m.KeyStart)
			c.recordKey(mp, Pos{File: file, Line: kl, Col: kc})
			c.recordJSON(&m.Value, data, file, mp)
		}
	}
}

func isJSONPath(p string) bool { return strings.EqualFold(filepath.Ext(p), ".json") }

func (c *converter) scalar(n *yaml.Node, file, ptr string) (canon.Value, error) {
	switch n.ShortTag() {
	case "!!null":
		return canon.NullValue(), nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return canon.Value{}, c.errorf(n, file, ptr, "%v", err)
		}
		return canon.BoolValue(b), nil
	case "!!int", "!!float":
		if canon.IsNumber(n.Value) {
			return canon.NumberValue(n.Value), nil
		}
		text, err := yamlNumber(n)
		if err != nil {
			return canon.Value{}, c.errorf(n, file, ptr, "%v", err)
		}
		return canon.NumberValue(text), nil
	case "!!str", "!!timestamp", "!!binary":
		// Timestamps stay the text written (JSON has no date type).
		return canon.StringValue(n.Value), nil
	}
	return canon.Value{}, c.errorf(n, file, ptr, "unsupported YAML tag %s", n.Tag)
}

// yamlNumber turns a YAML number that is not JSON number text (0x1f, 0o17,
// 1_000, +1, .5) into JSON number text; infinities and NaN are errors.
func yamlNumber(n *yaml.Node) (string, error) {
	s := strings.ReplaceAll(n.Value, "_", "")
	if n.ShortTag() == "!!int" {
		bi, ok := new(big.Int).SetString(s, 0)
		if !ok {
			return "", fmt.Errorf("cannot read %q as an integer", n.Value)
		}
		return bi.String(), nil
	}
	f, err := strconv.ParseFloat(strings.TrimPrefix(s, "+"), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q is not a finite number (JSON has no NaN or infinity)", n.Value)
	}
	return string(canon.AppendFloat(nil, f)), nil
}

// syntaxError locates err, yaml.v3's refusal of data read from file.
//
// yaml.v3 reports a line only ("yaml: line N: …"): its parser keeps the
// column of the problem internally and exports neither it nor the event
// stream, so a YAML syntax error has Col 0 (printed FILE:LINE) rather than
// a made-up column. JSON text is located exactly instead: a .json file, or
// data not named .yaml/.yml that starts with "{", is re-read with
// canon.Parse, whose byte offset gives the line and column.
func syntaxError(file string, data []byte, err error) *convError {
	if isJSONPath(file) || (!IsConfigName(file) && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))) {
		var se *canon.SyntaxError
		if _, perr := canon.Parse(data); errors.As(perr, &se) {
			p := Pos{File: file}
			p.Line, p.Col = canon.LineCol(data, se.Offset)
			return &convError{Pos: p, Msg: "invalid JSON: " + se.Msg}
		}
	}
	msg := err.Error()
	p := Pos{File: file}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
		if yamlParserProblems[strings.TrimSpace(strings.TrimPrefix(msg, "yaml:"))] {
			p.Line++
		}
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "yaml:"))
	return &convError{Pos: p, Msg: "invalid YAML: " + msg}
}

var yamlLine = regexp.MustCompile(`line (\d+):`)

// yamlParserProblems are the problems yaml.v3's parser (parserc.go, as
// opposed to its scanner) reports. For those it prints the 0-based line of
// its mark where it prints the 1-based line for scanner problems, so their
// line is one too low (TestSyntaxErrorsLocated pins both kinds).
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}
