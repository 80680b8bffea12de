package recording

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// Redacted replaces a redacted argument value.
const Redacted = "[redacted]"

// ErrRedactEntry is the error of a redact entry that names nothing: empty
// or blank, or a JSON Pointer with a "~" not followed by 0 or 1
// (RFC 6901, section 3). Test for it with errors.Is; the error is an
// *EntryError.
var ErrRedactEntry = errors.New("bad redact entry")

// EntryError is a redact entry refused by NewRedactor or CheckEntry.
type EntryError struct {
	Entry  string
	Reason string
}

func (e *EntryError) Error() string        { return e.Reason }
func (e *EntryError) Is(target error) bool { return target == ErrRedactEntry }

// CheckEntry accepts a member name or an RFC 6901 JSON Pointer (an entry
// starting with "/"); an entry that is empty or only white space, or a
// pointer with a bad "~" escape, is an *EntryError (ErrRedactEntry).
func CheckEntry(e string) error {
	if strings.TrimSpace(e) == "" {
		return &EntryError{Entry: e, Reason: fmt.Sprintf("an empty entry %q (want a member name or a JSON Pointer such as /auth/token)", e)}
	}
	if !strings.HasPrefix(e, "/") {
		return nil
	}
	for i := 0; i < len(e); i++ {
		if e[i] == '~' && (i+1 == len(e) || (e[i+1] != '0' && e[i+1] != '1')) {
			return &EntryError{Entry: e, Reason: fmt.Sprintf("%q is not a JSON Pointer: \"~\" must be followed by 0 or 1 (RFC 6901)", e)}
		}
	}
	return nil
}

// Redactor decides which argument values a record hides: the values of
// members whose name looks like a secret (LooksSecret), always, and those
// its entries name. An entry starting with "/" is a JSON Pointer
// (RFC 6901) into the arguments naming one position (an object member or
// an array item); any other entry is a member name, redacted at any depth
// (inside nested objects and arrays). A redacted value, whatever its type
// (an object or array included), becomes the string Redacted. The nil
// *Redactor redacts the secret-looking names only.
//
// `serve --record` (the config's record.redact) and `fixtures convert`
// (--redact) both redact with it, so a record and a conversion hide the
// same values.
type Redactor struct {
	names    map[string]bool
	pointers map[string]bool
}

// NewRedactor returns the redactor of entries (each checked by
// CheckEntry; the first bad one is returned as an *EntryError).
func NewRedactor(entries []string) (*Redactor, error) {
	r := &Redactor{names: map[string]bool{}, pointers: map[string]bool{}}
	for _, e := range entries {
		if err := CheckEntry(e); err != nil {
			return nil, err
		}
		if strings.HasPrefix(e, "/") {
			r.pointers[e] = true
		} else {
			r.names[e] = true
		}
	}
	return r, nil
}

// Redact replaces, in place, the values of v (a call's arguments) that r
// redacts with the string Redacted.
func (r *Redactor) Redact(v *canon.Value) { r.redactWith(v, nil, nil) }

// RedactCall redacts a call's arguments as sent (v). When a facade
// translated them (translated is not nil), the translated arguments are
// redacted too, and every value of v equal to one hidden there — or, for
// a number or boolean hidden there, to its text as a string (a coercion)
// — is hidden in v as well: a secret sent under an old member name is
// redacted like the member it is renamed to.
//
// Whatever the outcome, an argument sent under an old name that f (the
// tool's facade, or nil) renames into a redacted position is redacted: a
// call valid as sent, or rejected, is not translated but may still carry
// a secret under the old name.
func (r *Redactor) RedactCall(v *canon.Value, translated []byte, f *facade.Block) {
	extra := r.renamedSecrets(f)
	if translated == nil {
		r.redactWith(v, extra, nil)
		return
	}
	hidden := map[string]bool{}
	if t, err := canon.Parse(translated); err == nil {
		r.redactWith(&t, nil, hidden)
	}
	r.redactWith(v, extra, nil)
	if len(hidden) > 0 {
		hideEqual(v, hidden)
	}
}

// redactWith redacts v like Redact, at the extra JSON Pointers too, and,
// with hidden set, adds the RFC 8785 form of every value it hid to hidden.
func (r *Redactor) redactWith(v *canon.Value, extra, hidden map[string]bool) {
	var names, pointers map[string]bool
	if r != nil {
		names, pointers = r.names, r.pointers
	}
	if len(extra) > 0 {
		all := make(map[string]bool, len(pointers)+len(extra))
		for p := range pointers {
			all[p] = true
		}
		for p := range extra {
			all[p] = true
		}
		pointers = all
	}
	w := walker{names: names, pointers: pointers, hidden: hidden}
	w.walk(v, "")
}

// renamedSecrets returns the JSON Pointers of the old arguments f's
// renames (the tool's and its aliases') move into a position r redacts.
func (r *Redactor) renamedSecrets(f *facade.Block) map[string]bool {
	if f == nil {
		return nil
	}
	var out map[string]bool
	check := func(renames map[string]string) {
		for from, to := range renames {
			fromSegs, err1 := facade.ParseKey(from)
			toSegs, err2 := facade.ParseKey(to)
			if err1 != nil || err2 != nil || !r.redacts(toSegs) {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			out[schema.Pointer(fromSegs)] = true
		}
	}
	check(f.Rename)
	for _, a := range f.Aliases {
		check(a.Rename)
	}
	return out
}

// redacts reports whether r redacts the argument at segs (itself or a
// parent of it).
func (r *Redactor) redacts(segs []string) bool {
	for i, seg := range segs {
		if LooksSecret(seg) || (r != nil && (r.names[seg] || r.pointers[schema.Pointer(segs[:i+1])])) {
			return true
		}
	}
	return false
}

// hideEqual replaces every value below v whose RFC 8785 form is in hidden.
func hideEqual(v *canon.Value, hidden map[string]bool) {
	for _, k := range children(v) {
		if hidden[string(canon.AppendJCS(nil, k))] {
			*k = canon.Value{Kind: canon.String, Str: Redacted}
			continue
		}
		hideEqual(k, hidden)
	}
}

// children returns the members' values of an object, the items of an
// array, nothing for a scalar.
func children(v *canon.Value) []*canon.Value {
	var kids []*canon.Value
	switch v.Kind {
	case canon.Object:
		for i := range v.Members {
			kids = append(kids, &v.Members[i].Value)
		}
	case canon.Array:
		for i := range v.Items {
			kids = append(kids, &v.Items[i])
		}
	}
	return kids
}

// walker is the one value walk of redaction: members by name (given or
// secret-looking) and positions by JSON Pointer.
type walker struct {
	names, pointers map[string]bool
	hidden          map[string]bool // nil: do not collect
}

// walk redacts below v, which is at the JSON Pointer ptr (computed only
// when there are pointers to match).
func (w *walker) walk(v *canon.Value, ptr string) {
	switch v.Kind {
	case canon.Object:
		for i := range v.Members {
			m := &v.Members[i]
			p := ""
			if len(w.pointers) > 0 {
				p = ptr + "/" + canon.EscapePointer(m.Key)
			}
			if w.names[m.Key] || LooksSecret(m.Key) || w.pointers[p] {
				w.hide(&m.Value)
				continue
			}
			w.walk(&m.Value, p)
		}
	case canon.Array:
		for i := range v.Items {
			p := ""
			if len(w.pointers) > 0 {
				p = ptr + "/" + strconv.Itoa(i)
			}
			if w.pointers[p] {
				w.hide(&v.Items[i])
				continue
			}
			w.walk(&v.Items[i], p)
		}
	}
}

// hide replaces x with Redacted, collecting its former value (and, for a
// number or boolean, its text as a string, which a coercion may have made
// of it) into w.hidden.
func (w *walker) hide(x *canon.Value) {
	if w.hidden != nil && !(x.Kind == canon.String && x.Str == Redacted) {
		w.hidden[string(canon.AppendJCS(nil, x))] = true
		if x.Kind == canon.Number || x.Kind == canon.Bool {
			w.hidden[string(canon.AppendString(nil, string(canon.AppendJCS(nil, x))))] = true
		}
	}
	*x = canon.Value{Kind: canon.String, Str: Redacted}
}
