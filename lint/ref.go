package lint

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// defaultBase is the base URI of a schema without a root $id. A relative
// reference to another document ("other.json") resolves against it to a URI
// that is no resource of the schema, so it is reported as not local.
const defaultBase = "mcpctl:///schema.json"

// resource is one schema resource (JSON Schema 2020-12 Core §9.1.2): the
// root, or a subschema with its own $id. Fragments resolve inside it.
type resource struct {
	uri     string // absolute, without fragment
	ptr     string // JSON Pointer of its root inside the whole schema
	val     *canon.Value
	anchors map[string]string // anchor name -> pointer of its subschema
	names   []string          // anchor names in document order, for messages
}

// refIndex knows the resources and anchors of one schema.
type refIndex struct {
	res []*resource // root first, then in document order
	// dynamic says $dynamicRef is a keyword (2020-12, the default).
	dynamic bool
	// dups are anchors and $ids declared twice, in document order.
	dups []problem
}

// problem is a keyword that fails, at ptr (the pointer of its subschema).
type problem struct {
	rule         Rule
	ptr, kw, msg string
}

// resourceAt returns the innermost resource containing the subschema at ptr.
func (ix *refIndex) resourceAt(ptr string) *resource {
	best := ix.res[0]
	for _, r := range ix.res[1:] {
		if (ptr == r.ptr || strings.HasPrefix(ptr, r.ptr+"/")) && len(r.ptr) > len(best.ptr) {
			best = r
		}
	}
	return best
}

func (ix *refIndex) byURI(uri string) *resource {
	for _, r := range ix.res {
		if r.uri == uri {
			return r
		}
	}
	return nil
}

func (ix *refIndex) addAnchor(r *resource, name, p, kw, prefix string) {
	if name == "" {
		return
	}
	if first, ok := r.anchors[name]; ok {
		if first != p {
			ix.dups = append(ix.dups, problem{rSchemaInvalid, p, kw, fmt.Sprintf(
				`%s %q at %s%s repeats the anchor declared at %s: anchors must be unique within a schema resource, so rename one`,
				kw, name, prefix, p, pointerOrRoot(prefix+first))})
		}
		return
	}
	r.anchors[name] = p
	r.names = append(r.names, name)
}

// buildIndex finds the resources ($id; "id" in draft-04) and anchors
// ($anchor, $dynamicAnchor, and draft-06/07 fragment-only $id such as
// "#foo") of the schema at prefix, and the ones declared twice. A $id is
// taken as the base of a $ref beside it, as 2019-09 and later say (draft-07
// ignores siblings of $ref; the compiler then has the last word).
func buildIndex(root *canon.Value, prefix string) *refIndex {
	idKey, draft := "$id", "2020-12"
	if uri, ok := dollarSchema(root); ok {
		draft = draftOf(uri)
	}
	if draft == "draft-04" {
		idKey = "id"
	}
	ix := &refIndex{
		res:     []*resource{{uri: defaultBase, val: root, anchors: map[string]string{}}},
		dynamic: draft == "2020-12" || draft == "latest",
	}
	canon.WalkSchemas(root, func(s *canon.Value, p string) {
		if s.Kind != canon.Object {
			return
		}
		if id := s.Get(idKey); id != nil && id.Kind == canon.String {
			ix.addID(s, p, idKey, id.Str, prefix)
		}
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			if a := s.Get(kw); a != nil && a.Kind == canon.String {
				ix.addAnchor(ix.resourceAt(p), a.Str, p, kw, prefix)
			}
		}
	})
	return ix
}

func (ix *refIndex) addID(s *canon.Value, p, kw, id, prefix string) {
	enclosing := ix.resourceAt(p)
	abs, frag, err := join(enclosing.uri, id)
	if err != nil {
		return // the metaschema check reports a malformed $id
	}
	if strings.HasPrefix(id, "#") {
		if !strings.HasPrefix(frag, "/") {
			ix.addAnchor(enclosing, frag, p, kw, prefix)
		}
		return
	}
	if p == "" {
		ix.res[0].uri = abs
		return
	}
	if first := ix.byURI(abs); first != nil {
		ix.dups = append(ix.dups, problem{rSchemaInvalid, p, kw, fmt.Sprintf(
			`%s %q at %s%s identifies the same resource as the schema at %s: each $id must be unique, so change or remove one`,
			kw, id, prefix, p, pointerOrRoot(prefix+first.ptr))})
		return
	}
	ix.res = append(ix.res, &resource{uri: abs, ptr: p, val: s, anchors: map[string]string{}})
}

// refKeywords are the keywords whose value is a reference checked here.
// $dynamicRef first resolves like $ref (2020-12 Core §8.2.3.2).
var refKeywords = []string{"$ref", "$dynamicRef"}

// checkRefs checks the schema at prefix (a JSON Pointer inside the tool, e.g.
// "/inputSchema"): every $ref and $dynamicRef must resolve, and no anchor or
// $id may be declared twice. It calls report for each failure, with its rule,
// the pointer of the keyword relative to the schema and a message, and
// returns the failing keywords by the pointer of the subschema that holds
// them, so the caller can compile the schema without them.
func checkRefs(root *canon.Value, prefix string, report func(r Rule, ptr, msg string)) map[string][]string {
	ix := buildIndex(root, prefix)
	bad := map[string][]string{}
	fail := func(pr problem) {
		report(pr.rule, pr.ptr+"/"+canon.EscapePointer(pr.kw), pr.msg)
		bad[pr.ptr] = append(bad[pr.ptr], pr.kw)
	}
	for _, d := range ix.dups {
		fail(d)
	}
	canon.WalkSchemas(root, func(s *canon.Value, p string) {
		if s.Kind != canon.Object {
			return
		}
		for _, kw := range refKeywords {
			if kw == "$dynamicRef" && !ix.dynamic {
				continue // not a keyword before 2020-12
			}
			r := s.Get(kw)
			if r == nil || r.Kind != canon.String {
				continue // a non-string $ref is a metaschema (compile) error
			}
			if rule, msg := ix.resolve(r.Str, kw, ix.resourceAt(p), prefix); rule.ID != "" {
				fail(problem{rule, p, kw, msg})
			}
		}
	})
	return bad
}

// resolve resolves ref, found in resource base, and returns "" when it
// resolves or the failing rule and an actionable message.
func (ix *refIndex) resolve(ref, kw string, base *resource, prefix string) (rule Rule, msg string) {
	abs, frag, err := join(base.uri, ref)
	if err != nil {
		return rRefUnresolved, fmt.Sprintf(`%s %q is not a valid URI reference (%v): use "#/json/pointer" or "#anchor"`, kw, ref, err)
	}
	res := ix.byURI(abs)
	if res == nil {
		return rRefNotLocal, fmt.Sprintf(`%s %q points outside this schema; mcpctl resolves only references inside it (#, #/json/pointer, #anchor) and never fetches other documents: copy the referenced schema under "$defs" and refer to it as "#/$defs/NAME"`, kw, ref)
	}
	switch {
	case frag == "":
		return Rule{}, ""
	case strings.HasPrefix(frag, "/"):
		if m := resolvePointer(res.val, frag, prefix+res.ptr); m != "" {
			return rRefUnresolved, fmt.Sprintf("%s %q does not resolve: %s", kw, ref, m)
		}
		return Rule{}, ""
	}
	if _, ok := res.anchors[frag]; ok {
		return Rule{}, ""
	}
	known := "it has no anchors"
	if len(res.names) > 0 {
		known = "its anchors are " + quoteList(res.names)
	}
	where := "this schema"
	if res.ptr != "" {
		where = fmt.Sprintf("the resource with its own $id at %s%s", prefix, res.ptr)
	}
	return rRefUnresolved, fmt.Sprintf(`%s %q does not resolve: no "$anchor": %q in %s (%s): add the anchor to the intended subschema or use "#/json/pointer"`, kw, ref, frag, where, known)
}

// join resolves ref against base (RFC 3986 §5.2) the way jsonschema v6 does,
// so both agree on which resource a reference names: the fragment is split
// off at the first "#" and percent-decoded (RFC 6901 §6), and a relative
// reference against an opaque base ("urn:…") keeps the base (Go issue
// 66084). It returns the absolute URI without fragment, and the fragment.
func join(base, ref string) (uri, frag string, err error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", "", unwrapURLError(err)
	}
	rest, rawFrag, _ := strings.Cut(ref, "#")
	if frag, err = url.PathUnescape(rawFrag); err != nil {
		return "", "", unwrapURLError(err)
	}
	r, err := url.Parse(rest)
	if err != nil {
		return "", "", unwrapURLError(err)
	}
	abs := b.ResolveReference(r)
	if !r.IsAbs() && b.Opaque != "" {
		abs.Opaque = b.Opaque
	}
	return abs.String(), frag, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// resolvePointer walks an RFC 6901 JSON Pointer (already percent-decoded
// from the URI fragment, RFC 6901 §6) from v, whose location is at (for
// messages). It returns "" when the pointer reaches a schema (an object or a
// boolean), or why not.
func resolvePointer(v *canon.Value, ptr, at string) string {
	cur := v
	for _, tok := range strings.Split(ptr[1:], "/") {
		if !canon.ValidToken(tok) {
			return fmt.Sprintf(`%q is not a valid JSON Pointer token: "~" must be followed by 0 or 1 (RFC 6901 §3)`, tok)
		}
		name := canon.UnescapePointer(tok)
		var next *canon.Value
		switch cur.Kind {
		case canon.Object:
			next = cur.Get(name)
			if next == nil {
				return fmt.Sprintf("no member %q in the object at %s (%s)", name, pointerOrRoot(at), memberList(cur))
			}
		case canon.Array:
			i, ok := canon.ArrayIndex(name)
			if !ok || i >= len(cur.Items) {
				return fmt.Sprintf("no item %q in the array of %d at %s", name, len(cur.Items), pointerOrRoot(at))
			}
			next = &cur.Items[i]
		default:
			return fmt.Sprintf("the %s at %s has no member %q", cur.Kind, pointerOrRoot(at), name)
		}
		cur = next
		at += "/" + tok
	}
	if cur.Kind != canon.Object && cur.Kind != canon.Bool {
		return fmt.Sprintf("it points to %s at %s, not to a schema (an object or a boolean)", article(cur.Kind), at)
	}
	return ""
}

// memberList names an object's members for a message, at most eight.
func memberList(v *canon.Value) string {
	if len(v.Members) == 0 {
		return "it is empty"
	}
	names := make([]string, 0, 8)
	for i, m := range v.Members {
		if i == 8 {
			return "members " + quoteList(names) + fmt.Sprintf(" and %d more", len(v.Members)-8)
		}
		names = append(names, m.Key)
	}
	return "members " + quoteList(names)
}
