package serveconfig

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/schema"
)

// RecordConfig is the serve config's record block (--record):
//
//	record:
//	  redact: [session_key, /auth/header, /items/0/pin]
//
// Redact lists what `serve --record` replaces with "[redacted]"
// (fixtures.Redacted) before a call's arguments reach the disk: an entry
// starting with "/" is a JSON Pointer (RFC 6901) into the arguments naming
// one position; any other entry is a member name redacted at any depth.
// Besides these, members whose name looks like a secret are always
// redacted (see fixtures.LooksSecret). For a call a facade translated, the
// positions are those of the translated arguments: a value that lands in a
// redacted position is redacted wherever it was sent (an old member name
// included). The block only matters with --record; the live generation's
// block applies to every call from its publish on, also to sessions pinned
// to an older generation.
type RecordConfig struct {
	Redact []string

	names    map[string]bool
	pointers map[string]bool
}

func (p *cfgParser) record(rc *RecordConfig, v *canon.Value, ptr string) error {
	if v.Kind != canon.Object {
		return p.errAt(ptr, "", "record must be a mapping {redact: […]}, got %s", v.Kind)
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		if m.Key != "redact" {
			return p.keyErrAt(mp, "", "%s", unknownKey(m.Key, recordKeys...))
		}
		list, err := p.stringList(&m.Value, mp, "")
		if err != nil {
			return err
		}
		for j, e := range list {
			if err := checkRedactEntry(e); err != nil {
				return p.errAt(mp+"/"+strconv.Itoa(j), "", "record.redact: %v", err)
			}
		}
		rc.Redact = list
	}
	rc.compile()
	return nil
}

// checkRedactEntry accepts a member name or an RFC 6901 JSON Pointer.
func checkRedactEntry(e string) error {
	if e == "" {
		return errors.New("an empty entry (want a member name or a JSON Pointer such as /auth/token)")
	}
	if !strings.HasPrefix(e, "/") {
		return nil
	}
	for i := 0; i < len(e); i++ {
		if e[i] == '~' && (i+1 == len(e) || (e[i+1] != '0' && e[i+1] != '1')) {
			return fmt.Errorf("%q is not a JSON Pointer: \"~\" must be followed by 0 or 1 (RFC 6901)", e)
		}
	}
	return nil
}

func (rc *RecordConfig) compile() {
	rc.names, rc.pointers = map[string]bool{}, map[string]bool{}
	for _, e := range rc.Redact {
		if strings.HasPrefix(e, "/") {
			rc.pointers[e] = true
		} else {
			rc.names[e] = true
		}
	}
}

// redactCollect replaces, in place, the values of v (a call's arguments)
// that rc (nil: none configured) or fixtures.LooksSecret name with
// fixtures.Redacted and, with hidden set, adds the RFC 8785 form of every
// value it hid to hidden.
func (rc *RecordConfig) redactCollect(v *canon.Value, hidden map[string]bool) {
	rc.redactWith(v, nil, hidden)
}

// redactWith redacts v like redactCollect, at the extra JSON Pointers too.
func (rc *RecordConfig) redactWith(v *canon.Value, extra, hidden map[string]bool) {
	var names, pointers map[string]bool
	if rc != nil {
		names, pointers = rc.names, rc.pointers
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
	redactValue(v, "", names, pointers, hidden)
}

// renamedSecrets returns the JSON Pointers of the old arguments f's
// renames (the tool's and its aliases') move into a position rc redacts:
// a pointer rc lists, or below a member rc names or fixtures.LooksSecret.
func (rc *RecordConfig) renamedSecrets(f *facade.Block) map[string]bool {
	if f == nil {
		return nil
	}
	var out map[string]bool
	check := func(renames map[string]string) {
		for from, to := range renames {
			fromSegs, err1 := facade.ParseKey(from)
			toSegs, err2 := facade.ParseKey(to)
			if err1 != nil || err2 != nil || !rc.redacts(toSegs) {
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

// redacts reports whether the argument at segs is redacted by rc or by
// fixtures.LooksSecret (itself or a parent of it).
func (rc *RecordConfig) redacts(segs []string) bool {
	for i, seg := range segs {
		if fixtures.LooksSecret(seg) || (rc != nil && (rc.names[seg] || rc.pointers[schema.Pointer(segs[:i+1])])) {
			return true
		}
	}
	return false
}

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
func (rc *RecordConfig) RedactCall(v *canon.Value, translated []byte, f *facade.Block) {
	extra := rc.renamedSecrets(f)
	if translated == nil {
		rc.redactWith(v, extra, nil)
		return
	}
	hidden := map[string]bool{}
	if t, err := canon.Parse(translated); err == nil {
		rc.redactCollect(&t, hidden)
	}
	rc.redactWith(v, extra, nil)
	if len(hidden) > 0 {
		hideEqual(v, hidden)
	}
}

// hideEqual replaces every value below v whose RFC 8785 form is in hidden.
func hideEqual(v *canon.Value, hidden map[string]bool) {
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
	for _, k := range kids {
		if hidden[string(canon.AppendJCS(nil, k))] {
			*k = canon.Value{Kind: canon.String, Str: fixtures.Redacted}
			continue
		}
		hideEqual(k, hidden)
	}
}

func redactValue(v *canon.Value, ptr string, names, pointers map[string]bool, hidden map[string]bool) {
	hide := func(x *canon.Value) {
		if hidden != nil && !(x.Kind == canon.String && x.Str == fixtures.Redacted) {
			hidden[string(canon.AppendJCS(nil, x))] = true
			if x.Kind == canon.Number || x.Kind == canon.Bool {
				// A coercion may have made it of a string.
				hidden[string(canon.AppendString(nil, string(canon.AppendJCS(nil, x))))] = true
			}
		}
		*x = canon.Value{Kind: canon.String, Str: fixtures.Redacted}
	}
	switch v.Kind {
	case canon.Object:
		for i := range v.Members {
			m := &v.Members[i]
			p := ""
			if len(pointers) > 0 {
				p = ptr + "/" + canon.EscapePointer(m.Key)
			}
			if names[m.Key] || fixtures.LooksSecret(m.Key) || pointers[p] {
				hide(&m.Value)
				continue
			}
			redactValue(&m.Value, p, names, pointers, hidden)
		}
	case canon.Array:
		for i := range v.Items {
			p := ""
			if len(pointers) > 0 {
				p = ptr + "/" + strconv.Itoa(i)
			}
			if pointers[p] {
				hide(&v.Items[i])
				continue
			}
			redactValue(&v.Items[i], p, names, pointers, hidden)
		}
	}
}
