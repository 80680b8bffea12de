// Package schema compiles JSON Schemas held as canon values with
// github.com/santhosh-tekuri/jsonschema/v6 and validates instances against
// them. It is the one place mcpctl turns a schema into a validator, shared by
// lint, diff (witnesses), replay and serve.
//
// Drafts are chosen by "$schema" (draft-04, -06, -07, 2019-09, 2020-12), with
// 2020-12 when it is absent, as MCP 2025-11-25 specifies for tool schemas.
// Only local references resolve: a $ref to any other document is a compile
// error, never a network or file fetch.
//
//	c, err := schema.Compile(tool.InputSchema())
//	if err != nil { … }            // located: JSON Pointer in the message
//	err = c.Validate(schema.Instance(&args))
package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpctl/mcpctl/canon"
)

// resourceURL is the in-memory location every schema is compiled at.
const resourceURL = "mem:///schema.json"

// Compiled is a compiled schema, safe for concurrent use.
type Compiled struct {
	s *jsonschema.Schema
}

// Compile compiles a schema given as a canon value (an object or a boolean).
// Errors say what failed: an invalid keyword value (checked against the
// draft's metaschema), an unresolvable local $ref, a remote $ref. A compile
// failure is a *CompileError.
//
// Results are cached process-wide by the schema's RFC 8785 form (the same
// document compiles to the same validator; both are immutable), so lint,
// diff and serve compiling one schema pay for it once. The cache holds at
// most cacheSize entries.
func Compile(v *canon.Value) (*Compiled, error) {
	if v == nil {
		return nil, errors.New("no schema")
	}
	key := string(canon.AppendJCS(nil, v))
	if e, ok := cache.get(key); ok {
		return e.c, e.err
	}
	c, err := CompileAny(Instance(v))
	cache.put(key, cacheEntry{c, err})
	return c, err
}

// cacheSize bounds the compile cache (entries, not bytes).
const cacheSize = 2048

type cacheEntry struct {
	c   *Compiled
	err error
}

// compileCache is a bounded map evicting in insertion order.
type compileCache struct {
	mu    sync.Mutex
	m     map[string]cacheEntry
	order []string
}

var cache = compileCache{m: map[string]cacheEntry{}}

// ResetCache empties the compile cache. Benchmarks call it so that every
// iteration pays for its compiles, as a fresh process does.
func ResetCache() {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	cache.m = map[string]cacheEntry{}
	cache.order = nil
}

func (cc *compileCache) get(key string) (cacheEntry, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.m[key]
	return e, ok
}

func (cc *compileCache) put(key string, e cacheEntry) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if _, ok := cc.m[key]; ok {
		return
	}
	if len(cc.order) >= cacheSize {
		delete(cc.m, cc.order[0])
		cc.order = cc.order[1:]
	}
	cc.m[key] = e
	cc.order = append(cc.order, key)
}

// CompileAny compiles a schema given as a decoded JSON value (map[string]any,
// []any, string, json.Number, bool, nil). A schema holding a number that is
// not Representable is a *CompileError located at the first such number
// (the validator would otherwise ignore the keyword or panic).
func CompileAny(doc any) (*Compiled, error) {
	if ve := numberError(resourceURL, doc); ve != nil {
		return nil, cleanError(ve)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, cleanError(err)
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, cleanError(err)
	}
	return &Compiled{s: s}, nil
}

// Validate checks instance (a decoded JSON value, numbers as json.Number or
// float64) against the schema. It returns nil or a *jsonschema.ValidationError.
// Numbers that are not Representable are reported as such (ErrorKind
// *UnrepresentableNumber, located by InstanceLocation) without running the
// validator, which cannot compare them.
func (c *Compiled) Validate(instance any) error {
	if ve := numberError(c.s.Location, instance); ve != nil {
		return ve
	}
	return c.s.Validate(instance)
}

// Valid reports whether instance validates.
func (c *Compiled) Valid(instance any) bool { return c.Validate(instance) == nil }

// Raw returns the underlying jsonschema v6 schema.
func (c *Compiled) Raw() *jsonschema.Schema { return c.s }

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("only local references (#…) are resolved; not loading %s", url)
}

// CompileError is the error Compile and CompileAny return when a schema does
// not compile. Error() is the compiler's full message with the in-memory
// resource URL removed; Pointer and Reason locate and summarize it for
// one-line reports.
type CompileError struct {
	// Pointer is the RFC 6901 JSON Pointer, relative to the compiled schema,
	// of the value the metaschema rejected ("" for the root, or when the
	// compiler does not say where, e.g. an unresolvable $ref).
	Pointer string
	// Reason is one line: the metaschema's complaints about the value at
	// Pointer joined with "; ", or the compiler's message.
	Reason string
	msg    string
	// Err is the jsonschema v6 error.
	Err error
}

func (e *CompileError) Error() string { return e.msg }

// Unwrap returns the jsonschema v6 error.
func (e *CompileError) Unwrap() error { return e.Err }

// cleanError strips the in-memory resource URL from compiler messages and,
// for a metaschema violation or an unrepresentable number, locates its
// deepest complaint.
func cleanError(err error) error {
	clean := func(s string) string { return strings.ReplaceAll(s, resourceURL, "") }
	ce := &CompileError{Reason: clean(err.Error()), msg: clean(err.Error()), Err: err}
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	inner := err
	if errors.As(err, &sve) {
		inner = sve.Err
	}
	if errors.As(inner, &ve) {
		loc, reasons := deepestLeaves(ve)
		ce.Pointer = Pointer(loc)
		ce.Reason = strings.Join(reasons, "; ")
	}
	return ce
}

// deepestLeaves returns the instance location of the deepest leaf errors of a
// validation error tree (the first in JSON Pointer order when several are
// equally deep, since jsonschema v6 orders some causes by map iteration),
// and their distinct messages, sorted.
func deepestLeaves(ve *jsonschema.ValidationError) ([]string, []string) {
	var best []string
	var reasons []string
	found := false
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := e.InstanceLocation
		msg := e.BasicOutput().Error.String()
		switch {
		case !found || len(loc) > len(best) || len(loc) == len(best) && Pointer(loc) < Pointer(best):
			found, best, reasons = true, loc, []string{msg}
		case slices.Equal(loc, best) && !slices.Contains(reasons, msg):
			reasons = append(reasons, msg)
		}
	}
	walk(ve)
	slices.Sort(reasons)
	return best, reasons
}

// Instance converts a canon value to the decoded form jsonschema v6 and
// encoding/json use: map[string]any, []any, string, bool, nil, and
// json.Number for numbers (exact, never rounded).
func Instance(v *canon.Value) any {
	switch v.Kind {
	case canon.Null:
		return nil
	case canon.Bool:
		return v.Bool
	case canon.Number:
		return json.Number(v.Str)
	case canon.String:
		return v.Str
	case canon.Array:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = Instance(&v.Items[i])
		}
		return out
	case canon.Object:
		out := make(map[string]any, len(v.Members))
		for i := range v.Members {
			out[v.Members[i].Key] = Instance(&v.Members[i].Value)
		}
		return out
	}
	return nil
}

// CloneInstance deep-copies a decoded JSON value of the form Instance
// returns (maps and slices are copied; scalars are shared).
func CloneInstance(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = CloneInstance(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneInstance(e)
		}
		return out
	}
	return v
}

// Decode parses JSON bytes into the form Instance returns (numbers as
// json.Number), strictly (see canon.Parse).
func Decode(data []byte) (any, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, err
	}
	return Instance(&v), nil
}

// Pointer renders a jsonschema instance location as an RFC 6901 JSON Pointer.
func Pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(canon.EscapePointer(tok))
	}
	return b.String()
}
