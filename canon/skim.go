package canon

import "bytes"

// DeeperThan returns the byte offset of the first array or object that
// data opens deeper than levels (the outermost value is level 1), or
// -1 when there is none. It reads brackets outside strings and nothing
// else, in one pass and without allocating: it runs before a decoder that
// fails a whole stream on such nesting (the go-sdk's, beyond 1000 levels).
// Whether data is JSON at all is Parse's to say.
func DeeperThan(data []byte, levels int) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i += stringLen(data[i:]) - 1
		case '[', '{':
			if depth++; depth > levels {
				return i
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return -1
}

// stringLen is the length of the string d opens (d[0] is its quote), its
// closing quote included, or len(d) when d does not close it. It jumps
// from quote to quote (bytes.IndexByte): a tool's text result is mostly
// one long string.
func stringLen(d []byte) int {
	for i := 1; i < len(d); {
		q := bytes.IndexByte(d[i:], '"')
		if q < 0 {
			return len(d)
		}
		i += q
		bs := 0 // the backslashes before the quote: an odd count escapes it
		for bs < i-1 && d[i-1-bs] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return i + 1
		}
		i++
	}
	return len(d)
}

// Skim parses data as Parse does, but builds only its top depth levels:
// an array or object below them is kept as an empty value of its kind
// (nil Items or Members) spanning its bytes, read only as DeeperThan reads
// (strings and brackets), to any depth. It reads the top of a text nested
// deeper than Parse accepts, such as a JSON-RPC message's id and method.
func Skim(data []byte, depth int) (Value, error) {
	return parse(parser{data: data, noIntern: true, skimAt: max(depth, 1)})
}

// skip reads the array or object at p.pos to its end (Skim) into *v.
func (p *parser) skip(v *Value) error {
	start, open := p.pos, 0
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '"':
			p.pos += stringLen(p.data[p.pos:])
			continue
		case '[', '{':
			open++
		case ']', '}':
			if open--; open == 0 {
				p.pos++
				kind := Object
				if p.data[start] == '[' {
					kind = Array
				}
				*v = Value{Kind: kind, Start: start, End: p.pos}
				return nil
			}
		}
		p.pos++
	}
	return p.errorf(p.pos, "unexpected end of input in the value opened at byte offset %d", start)
}
