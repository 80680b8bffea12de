package canon

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects Parse accepts. Real
// tool schemas nest a few dozen levels; the cost of compiling and comparing
// schemas grows faster than linearly with depth, so a document nested
// deeper than this is refused as bad input rather than stalling lint, diff,
// replay or a serve reload.
const MaxDepth = 1000

// ErrSyntax is wrapped by every error Parse returns, so callers can tell bad
// input (exit code 2) from other failures with errors.Is.
var ErrSyntax = errors.New("invalid JSON")

// SyntaxError is a located parse failure: Offset is the 0-based byte offset
// in the input where the problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
	// Truncated: the input ends inside the value the error is about (an
	// unclosed string, array or object, a literal or number cut short),
	// so more bytes could make it valid: a line cut short by a crash.
	Truncated bool
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte offset %d: %s", e.Offset, e.Msg) }

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// LineCol returns the 1-based line and column (in bytes) of offset in data
// (clamped to data). It reads data up to offset; to locate many offsets of
// one document, use Lines.
func LineCol(data []byte, offset int) (line, col int) {
	offset = max(0, min(offset, len(data)))
	prefix := data[:offset]
	return lineCol(bytes.Count(prefix, []byte{'\n'}), bytes.LastIndexByte(prefix, '\n'), offset)
}

// lineCol is the position of offset after newlines line feeds, the last of
// them at lastNL (-1: none).
func lineCol(newlines, lastNL, offset int) (line, col int) {
	return newlines + 1, offset - lastNL
}

// Lines locates byte offsets of one document as LineCol does, in
// O(log lines) each: the line feeds are indexed once, at the first call.
// Safe for concurrent use.
type Lines struct {
	data []byte
	once sync.Once
	nl   []int // offsets of the line feeds
}

// NewLines returns the line index of data (built when first used).
func NewLines(data []byte) *Lines { return &Lines{data: data} }

// LineCol returns the 1-based line and column (in bytes) of offset, as
// LineCol(data, offset).
func (l *Lines) LineCol(offset int) (line, col int) {
	l.once.Do(func() {
		for i, b := range l.data {
			if b == '\n' {
				l.nl = append(l.nl, i)
			}
		}
	})
	offset = max(0, min(offset, len(l.data)))
	n := sort.SearchInts(l.nl, offset) // line feeds before offset
	last := -1
	if n > 0 {
		last = l.nl[n-1]
	}
	return lineCol(n, last, offset)
}

// Parse decodes one JSON text (RFC 8259) strictly into an ordered tree.
//
// Unlike encoding/json it refuses, with a *SyntaxError carrying the byte
// offset: duplicate member names in one object (RFC 8259 §4 leaves them
// undefined; RFC 8785 §3.1 forbids them), invalid UTF-8 anywhere, escapes
// that decode to a lone UTF-16 surrogate, trailing data after the value,
// non-JSON tokens such as NaN or Infinity, and nesting deeper than MaxDepth.
// Leading and trailing JSON whitespace is allowed; a UTF-8 byte order mark is
// not (RFC 8259 §8.1).
func Parse(data []byte) (Value, error) {
	return parse(parser{data: data, noIntern: len(data) < internMin})
}

// parse runs p over its data (Parse, Skim).
func parse(p parser) (Value, error) {
	sc := scratchPool.Get().(*scratch)
	p.members, p.items = sc.members, sc.items
	defer sc.put(&p)
	p.skipWS()
	var v Value
	if err := p.value(0, &v); err != nil {
		return Value{}, err
	}
	p.skipWS()
	if p.pos < len(p.data) {
		return Value{}, p.errorf(p.pos, "trailing data after the JSON value (%s)", p.describe(p.pos))
	}
	return v, nil
}

// internMin is the input size from which Parse interns short strings: a
// smaller text (a call, a response) has too few repeats to pay for the
// table.
const internMin = 1024

// scratch is a parser's member and item stacks, kept between parses
// (scratchPool) so that a small text grows none; each Value still gets
// slices of its own.
type scratch struct {
	members []Member
	items   []Value
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxScratch is the longest stack put back for reuse (one of a huge
// document would stay allocated).
const maxScratch = 1024

// put takes back p's stacks, emptied (an error leaves entries on them),
// and returns sc to the pool.
func (sc *scratch) put(p *parser) {
	if cap(p.members) > maxScratch || cap(p.items) > maxScratch {
		return
	}
	clear(p.members)
	clear(p.items)
	sc.members, sc.items = p.members[:0], p.items[:0]
	scratchPool.Put(sc)
}

type parser struct {
	data []byte
	pos  int
	buf  []byte
	// members and items are stacks shared by all objects and arrays being
	// parsed: each container collects its children on top and then copies
	// them into one exactly sized slice, instead of growing its own.
	members []Member
	items   []Value
	// strs interns short strings (member names, type names, small numbers),
	// which repeat throughout a discovery document.
	strs map[string]string
	// noIntern turns interning off (Decode: nothing is kept to share).
	noIntern bool
	// spanKey names a member of the top-level object whose value's byte
	// range DecodeSpan records in span.
	spanKey string
	span    [2]int
	// skimAt, when not 0, is the depth from which Skim skips containers.
	skimAt int
}

// maxInterned is the longest string Parse interns.
const maxInterned = 32

// intern returns b as a string, shared with earlier equal strings when short.
func (p *parser) intern(b []byte) string {
	if len(b) > maxInterned || p.noIntern {
		return string(b)
	}
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	if p.strs == nil {
		// About one distinct short string per 64 bytes of input, so a
		// small document (a call's arguments) gets a small table.
		p.strs = make(map[string]string, min(256, len(p.data)/64))
	}
	s := string(b)
	p.strs[s] = s
	return s
}

func (p *parser) errorf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...), Truncated: off >= len(p.data)}
}

func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	r, size := utf8.DecodeRune(p.data[off:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", p.data[off])
	}
	return strconv.QuoteRune(r)
}

func (p *parser) skipWS() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the value at p.pos into *v. The parse functions write
// into a destination rather than return a Value: returned by value, a
// Value and its temporaries made every level of nesting cost almost 2 KB
// of stack, which a goroutine whose stack the garbage collector had shrunk
// (a transport's reader, parsing each message) grew and copied again for
// every message after a collection.
func (p *parser) value(depth int, v *Value) error {
	if p.pos >= len(p.data) {
		return p.notValue()
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth, v)
	case c == '[':
		return p.array(depth, v)
	case c == '"':
		return p.strValue(v)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(v)
	case c == 't':
		return p.literal("true", Bool, v)
	case c == 'f':
		return p.literal("false", Bool, v)
	case c == 'n':
		return p.literal("null", Null, v)
	}
	return p.notValue()
}

// notValue is value's error for a byte that starts no JSON value, or
// the end of input.
func (p *parser) notValue() error {
	if p.pos >= len(p.data) {
		return p.errorf(p.pos, "unexpected end of input, want a JSON value")
	}
	d := p.data[p.pos:]
	if len(d) >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF {
		return p.errorf(p.pos, "unexpected byte order mark (U+FEFF); JSON text must not start with one (RFC 8259 §8.1)")
	}
	return p.errorf(p.pos, "unexpected %s, want a JSON value", p.describe(p.pos))
}

// literal parses true, false or null (word, of kind k).
func (p *parser) literal(word string, k Kind, v *Value) error {
	start := p.pos
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.badLiteral(word)
	}
	p.pos += len(word)
	*v = Value{}
	v.Kind, v.Bool, v.Start, v.End = k, word == "true", start, p.pos
	return nil
}

// strValue parses a string value.
func (p *parser) strValue(v *Value) error {
	start := p.pos
	s, err := p.str()
	*v = Value{}
	v.Kind, v.Str, v.Start, v.End = String, s, start, p.pos
	return err
}

func (p *parser) badLiteral(word string) error {
	err := &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf("invalid literal (%s), want %s", p.describe(p.pos), word)}
	err.Truncated = bytes.HasPrefix([]byte(word), p.data[p.pos:])
	return err
}

func (p *parser) object(depth int, v *Value) error {
	if p.skimAt > 0 && depth >= p.skimAt {
		return p.skip(v)
	}
	if depth >= MaxDepth {
		return p.tooDeep()
	}
	start := p.pos
	p.pos++ // {
	*v = Value{}
	v.Kind, v.Start = Object, start
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		v.End = p.pos
		v.Members = []Member{}
		return nil
	}
	base := len(p.members) // on error the parse ends, so no need to pop
	dups := duplicates{}
	var m Member
	for {
		if err := p.member(depth, p.members[base:], &dups, &m); err != nil {
			return err
		}
		p.members = append(p.members, m)
		p.skipWS()
		if p.pos >= len(p.data) {
			return p.unclosed("object", start)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.End = p.pos
			v.Members = make([]Member, len(p.members)-base)
			copy(v.Members, p.members[base:])
			v.IndexMembers()
			clear(p.members[base:])
			p.members = p.members[:base]
			return nil
		default:
			return p.unexpected(" in object, want ',' or '}'")
		}
	}
}

// unclosed is the error for the end of input inside the container
// (object or array) opened at start.
func (p *parser) unclosed(container string, start int) error {
	return p.errorf(p.pos, "unexpected end of input in %s opened at byte offset %d", container, start)
}

// tooDeep is the error for a container opened at MaxDepth.
func (p *parser) tooDeep() error {
	return p.errorf(p.pos, "nesting deeper than %d", MaxDepth)
}

// unexpected is the error for the byte at p.pos, rest saying where it
// is and what could have been there.
func (p *parser) unexpected(rest string) error {
	return p.errorf(p.pos, "unexpected %s%s", p.describe(p.pos), rest)
}

// member parses one object member, name, ':' and value, into *m, refusing
// a name one of its siblings (the members before it) has.
func (p *parser) member(depth int, siblings []Member, dups *duplicates, m *Member) error {
	p.skipWS()
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return p.unexpected(", want a member name string")
	}
	keyStart := p.pos
	key, err := p.str()
	if err != nil {
		return err
	}
	if first, dup := dups.check(siblings, key, keyStart); dup {
		return p.duplicate(key, keyStart, first)
	}
	p.skipWS()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return p.unexpected(" after member name, want ':'")
	}
	p.pos++
	p.skipWS()
	m.Key, m.KeyStart = key, keyStart
	return p.value(depth+1, &m.Value)
}

func (p *parser) duplicate(key string, keyStart, first int) error {
	return p.errorf(keyStart, "duplicate member name %q (first at byte offset %d)", key, first)
}

// duplicates finds duplicate member names: linearly among few siblings,
// by a map (built at the 16th) beyond.
type duplicates struct {
	seen map[string]int // member name → KeyStart
}

// check reports whether key (at byte offset keyStart) is the name of one
// of siblings, and where that one starts.
func (d *duplicates) check(siblings []Member, key string, keyStart int) (first int, dup bool) {
	if len(siblings) < 16 {
		for i := range siblings {
			if siblings[i].Key == key {
				return siblings[i].KeyStart, true
			}
		}
		return 0, false
	}
	if d.seen == nil {
		d.seen = make(map[string]int, 2*len(siblings))
		for i := range siblings {
			d.seen[siblings[i].Key] = siblings[i].KeyStart
		}
	}
	if first, dup := d.seen[key]; dup {
		return first, true
	}
	d.seen[key] = keyStart
	return 0, false
}

func (p *parser) array(depth int, v *Value) error {
	if p.skimAt > 0 && depth >= p.skimAt {
		return p.skip(v)
	}
	if depth >= MaxDepth {
		return p.tooDeep()
	}
	start := p.pos
	p.pos++ // [
	*v = Value{}
	v.Kind, v.Start = Array, start
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		v.End = p.pos
		v.Items = []Value{}
		return nil
	}
	base := len(p.items)
	var item Value
	for {
		p.skipWS()
		if err := p.value(depth+1, &item); err != nil {
			return err
		}
		p.items = append(p.items, item)
		p.skipWS()
		if p.pos >= len(p.data) {
			return p.unclosed("array", start)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.End = p.pos
			v.Items = make([]Value, len(p.items)-base)
			copy(v.Items, p.items[base:])
			clear(p.items[base:])
			p.items = p.items[:base]
			return nil
		default:
			return p.unexpected(" in array, want ',' or ']'")
		}
	}
}

func (p *parser) number(v *Value) error {
	start := p.pos
	end, want := numberEnd(p.data, start)
	if want != "" {
		return p.badNumber(end, want)
	}
	p.pos = end
	*v = Value{}
	v.Kind, v.Str, v.Start, v.End = Number, p.intern(p.data[start:end]), start, end
	return nil
}

func (p *parser) badNumber(off int, want string) error {
	return p.errorf(off, "invalid number: want %s, got %s", want, p.describe(off))
}

// IsNumber reports whether s is exactly one JSON number (RFC 8259 §6), no
// whitespace around it.
func IsNumber(s string) bool {
	end, want := numberEnd(s, 0)
	return want == "" && end == len(s)
}

// numberEnd is the one JSON number grammar (RFC 8259 §6): it scans the
// number starting at d[i] and returns its end, or, when the text there is
// not a number, the offset of the offending byte and what was wanted there.
func numberEnd[T string | []byte](d T, i int) (end int, want string) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && isDigit(d[i]):
		i = digitsEnd(d, i)
	default:
		return i, "a digit"
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return i, "a digit after '.'"
		}
		i = digitsEnd(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return i, "a digit in the exponent"
		}
		i = digitsEnd(d, i)
	}
	return i, ""
}

func digitsEnd[T string | []byte](d T, i int) int {
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// str reads a string starting at the opening quote and returns it decoded.
// An error inside a string that the input never closes is Truncated.
func (p *parser) str() (string, error) {
	s, err := p.strBody()
	if se, ok := err.(*SyntaxError); ok && !closes(p.data[se.Offset:]) {
		se.Truncated = true
	}
	return s, err
}

// closes reports whether d, from inside a string (or at its opening
// quote), holds the string's closing quote.
func closes(d []byte) bool {
	if len(d) > 0 && d[0] == '"' {
		d = d[1:]
	}
	for i := 0; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return true
		}
	}
	return false
}

func (p *parser) strBody() (string, error) {
	d := p.data
	open := p.pos
	i := p.pos + 1
	// Fast path: no escapes, ASCII or valid UTF-8.
	for i < len(d) {
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return p.intern(d[open+1 : i]), nil
		}
		if c == '\\' {
			return p.strEscaped(open, i)
		}
		if c < 0x20 {
			return "", p.errorf(i, "control character 0x%02x in string (must be escaped)", c)
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(d[i:])
		if r == utf8.RuneError && size <= 1 {
			return "", p.errorf(i, "invalid UTF-8 byte 0x%02x in string", c)
		}
		i += size
	}
	return "", p.errorf(open, "unterminated string")
}

// strEscaped is str's slow path, from the first backslash at i of the
// string opened at open.
func (p *parser) strEscaped(open, i int) (string, error) {
	d := p.data
	buf := append(p.buf[:0], d[open+1:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = buf
			return p.intern(buf), nil
		case c == '\\':
			var err error
			if buf, i, err = p.escape(buf, open, i); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf(i, "control character 0x%02x in string (must be escaped)", c)
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.errorf(i, "invalid UTF-8 byte 0x%02x in string", c)
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
	return "", p.errorf(open, "unterminated string")
}

// escapes maps the one-character escapes (RFC 8259 §7) to their byte.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape at d[i] (a backslash) of the string opened at
// open onto buf, and returns the offset after it.
func (p *parser) escape(buf []byte, open, i int) ([]byte, int, error) {
	d := p.data
	if i+1 >= len(d) {
		return nil, 0, p.errorf(open, "unterminated string")
	}
	if b := escapes[d[i+1]]; b != 0 {
		return append(buf, b), i + 2, nil
	}
	if d[i+1] != 'u' {
		return nil, 0, p.errorf(i, "invalid escape \\%s in string", p.describe(i+1))
	}
	r, err := p.hex4(i)
	if err != nil {
		return nil, 0, err
	}
	escStart := i
	i += 6
	if utf16.IsSurrogate(r) {
		if r >= 0xDC00 || i+1 >= len(d) || d[i] != '\\' || d[i+1] != 'u' {
			return nil, 0, p.errorf(escStart, "lone UTF-16 surrogate escape \\u%04x", r)
		}
		r2, err := p.hex4(i)
		if err != nil {
			return nil, 0, err
		}
		if r2 < 0xDC00 || r2 > 0xDFFF {
			return nil, 0, p.errorf(escStart, "lone UTF-16 surrogate escape \\u%04x", r)
		}
		r = utf16.DecodeRune(r, r2)
		i += 6
	}
	return utf8.AppendRune(buf, r), i, nil
}

func (p *parser) hex4(i int) (rune, error) {
	d := p.data
	if i+6 > len(d) {
		return 0, p.errorf(i, "truncated \\u escape")
	}
	var r rune
	for _, c := range d[i+2 : i+6] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.errorf(i, "invalid \\u escape")
		}
	}
	return r, nil
}
