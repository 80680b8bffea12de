package canon

import "encoding/json"

// Decode decodes one JSON text with Parse's grammar and refusals straight
// into the Go form a JSON Schema validator takes: map[string]any, []any,
// string, json.Number, bool and nil (the form schema.Instance gives a
// Value), without building the ordered tree. It is for data read once and
// validated, never re-encoded, such as recorded calls. Input Parse refuses
// gets Parse's *SyntaxError, located the same way.
func Decode(data []byte) (any, error) {
	v, _, err := DecodeSpan(data, "")
	return v, err
}

// DecodeSpan is Decode that also returns the byte range [start, end) of the
// value of the member named key of the top-level object ([0 0] when the
// text is not an object, has no such member, or key is "").
func DecodeSpan(data []byte, key string) (any, [2]int, error) {
	p := parser{data: data, noIntern: true, spanKey: key}
	p.skipWS()
	v, err := p.anyValue(0)
	if err == nil {
		p.skipWS()
		if p.pos == len(p.data) {
			return v, p.span, nil
		}
	}
	// Parse locates the problem (its messages are the one source of them).
	if _, perr := Parse(data); perr != nil {
		err = perr
	}
	return nil, [2]int{}, err
}

// errDecode stops anyValue; DecodeSpan replaces it with Parse's error.
var errDecode = &SyntaxError{Offset: -1, Msg: "invalid JSON"}

// anyValue is value in Decode's form: containers are built here, scalars
// (and every error of a value's first byte) come from value.
func (p *parser) anyValue(depth int) (any, error) {
	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '{':
			return p.anyObject(depth)
		case '[':
			return p.anyArray(depth)
		}
	}
	var v Value
	if err := p.value(depth, &v); err != nil {
		return nil, err
	}
	switch v.Kind {
	case Bool:
		return v.Bool, nil
	case Number:
		return json.Number(v.Str), nil
	case String:
		return v.Str, nil
	}
	return nil, nil
}

func (p *parser) anyObject(depth int) (any, error) {
	if depth >= MaxDepth {
		return nil, errDecode
	}
	p.pos++ // {
	m := make(map[string]any, 8)
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		p.skipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, errDecode
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, errDecode
		}
		p.skipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, errDecode
		}
		p.pos++
		p.skipWS()
		start := p.pos
		v, err := p.anyValue(depth + 1)
		if err != nil {
			return nil, err
		}
		if depth == 0 && key == p.spanKey && key != "" {
			p.span = [2]int{start, p.pos}
		}
		m[key] = v
		if done, err := p.next('}'); done || err != nil {
			return m, err
		}
	}
}

func (p *parser) anyArray(depth int) (any, error) {
	if depth >= MaxDepth {
		return nil, errDecode
	}
	p.pos++ // [
	a := []any{}
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for {
		p.skipWS()
		v, err := p.anyValue(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if done, err := p.next(']'); done || err != nil {
			return a, err
		}
	}
}

// next reads what follows a container's element: ',' (done false) or the
// closing byte (done true).
func (p *parser) next(closing byte) (done bool, err error) {
	p.skipWS()
	if p.pos >= len(p.data) {
		return false, errDecode
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, errDecode
}
