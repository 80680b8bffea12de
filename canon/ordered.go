package canon

// AppendOrdered appends v as compact JSON with object members in their
// order (the served form, docs/canon.md#canonical-form: source key order preserved). Strings
// are escaped as RFC 8785 does (valid JSON); numbers are written as their
// text.
func AppendOrdered(dst []byte, v *Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return append(dst, v.Str...)
	case String:
		return AppendString(dst, v.Str)
	case Array:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendOrdered(dst, &v.Items[i])
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i := range v.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, v.Members[i].Key)
			dst = append(dst, ':')
			dst = AppendOrdered(dst, &v.Members[i].Value)
		}
		return append(dst, '}')
	}
	return dst
}

// StripOffsets clears byte offsets that refer to another file.
func StripOffsets(v Value) Value {
	v.Start, v.End = 0, 0
	for i := range v.Items {
		v.Items[i] = StripOffsets(v.Items[i])
	}
	for i := range v.Members {
		v.Members[i].KeyStart = 0
		v.Members[i].Value = StripOffsets(v.Members[i].Value)
	}
	return v
}
