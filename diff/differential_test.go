package diff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/toolset"
)

// The differential test judges the engine from outside: it mutates every
// input and output schema of testdata/realdata/, asks diff.Compare for a
// verdict, and checks the verdict with the validator
// (santhosh-tekuri/jsonschema/v6, used directly) on instances from this
// file's own generator (differential_gen_test.go), never the engine's.
//
//	go test ./diff -run Differential -count=1            # default size, seeded
//	go test ./diff -run Differential -pairs 20000        # many more pairs
//	go test ./diff -run Differential -pairs 20000 -write-counterexamples
//
// A failing pair is minimized (differential_min_test.go) and printed; with
// -write-counterexamples it is written to testdata/differential/, where
// TestDifferentialFixtures replays it.
var (
	diffPairs = flag.Int("pairs", defaultPairs, "differential test: number of mutated schema pairs")
	diffSeed  = flag.Uint64("seed", 20261201, "differential test: seed")
	diffWrite = flag.Bool("write-counterexamples", false, "differential test: write minimized counterexamples to testdata/differential/")
)

// dfCase is one schema pair in one direction: the old and new schema
// documents (decoded JSON, numbers as json.Number).
type dfCase struct {
	Direction diff.Direction `json:"direction"`
	Old       any            `json:"old"`
	New       any            `json:"new"`
	// Mutation says how the pair was made (informational).
	Mutation string `json:"mutation,omitempty"`
}

// dfFailure is one contradiction between the engine's verdict and the
// validator.
type dfFailure struct {
	Kind     string // false-safe, bad-witness, missing-finding, unproven, panic
	Detail   string
	Instance any // the instance that proves it, when there is one
}

func TestDifferential(t *testing.T) {
	t.Parallel()
	corpus := loadCorpus(t)
	var pairs, findings, distinct int
	seen := map[string]bool{}
	for i := 0; i < *diffPairs; i++ {
		rng := rand.New(rand.NewPCG(*diffSeed, uint64(i)))
		c := mutatePair(rng, corpus[rng.IntN(len(corpus))])
		v := judgeCase(c)
		if v.skip {
			continue
		}
		pairs++
		findings += v.findings
		if v.differ {
			distinct++
		}
		if len(v.failures) == 0 {
			continue
		}
		m := minimize(c, v.failures[0].Kind)
		key := string(mustJSON(m.Old)) + string(mustJSON(m.New)) + string(m.Direction)
		if seen[key] {
			continue
		}
		seen[key] = true
		reportCounterexample(t, fmt.Sprintf("pair %d", i), m)
	}
	t.Logf("%d pairs judged (seed %d), %d findings, %d pairs with a different accepted set, %d distinct minimized counterexamples",
		pairs, *diffSeed, findings, distinct, len(seen))
}

// reportCounterexample prints a minimized counterexample: as known when it
// belongs to an item of issue 9 fixed on another branch, as a failure
// otherwise. With -write-counterexamples it becomes a fixture.
func reportCounterexample(t *testing.T, where string, m dfCase) {
	t.Helper()
	v := judgeCase(m)
	if len(v.failures) == 0 {
		return
	}
	f := v.failures[0]
	text := fmt.Sprintf("%s: %s %s: %s\n  old %s\n  new %s\n  instance %s\n  findings:%s",
		where, m.Direction, f.Kind, f.Detail, mustJSON(m.Old), mustJSON(m.New), mustJSON(f.Instance), v.summary)
	if *diffWrite {
		writeFixture(t, m)
	}
	t.Errorf("%s", text)
}

// writeFixture stores a minimized counterexample under
// testdata/differential/, named by its content.
func writeFixture(t *testing.T, m dfCase) {
	t.Helper()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s-%08x.json", m.Direction, fnv32(data))
	if err := os.WriteFile(filepath.Join("testdata", "differential", name), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fnv32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// TestDifferentialFixtures replays every minimized counterexample the
// differential test found (testdata/differential/*.json): each must now be
// judged right, or belong to a known item of issue 9.
func TestDifferentialFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "differential", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures under testdata/differential")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c dfCase
			if err := unmarshalNumbers(data, &c); err != nil {
				t.Fatal(err)
			}
			v := judgeCase(c)
			if v.skip {
				t.Fatalf("fixture does not compile: %s", v.summary)
			}
			reportCounterexample(t, c.Mutation, c)
		})
	}
}

// verdict is the outcome of judging one pair.
type verdict struct {
	skip     bool // a schema does not compile: nothing to judge
	differ   bool // the accepted sets differ on some instance
	findings int
	failures []dfFailure
	summary  string
}

// judgeCase compares the pair with the engine and checks the report
// against the validator.
func judgeCase(c dfCase) (v verdict) {
	oj, err1 := newJudge(c.Old)
	nj, err2 := newJudge(c.New)
	if err1 != nil || err2 != nil {
		return verdict{skip: true, summary: fmt.Sprint(err1, err2)}
	}
	defer func() {
		if r := recover(); r != nil {
			v.failures = append(v.failures, dfFailure{Kind: "panic", Detail: fmt.Sprint(r)})
		}
	}()
	r, err := compareCase(c)
	if err != nil {
		return verdict{skip: true, summary: err.Error()}
	}
	changes := directionChanges(r, c.Direction)
	v.findings = len(changes)
	v.summary = summarize(changes)
	src, dst := oj, nj // input: old ⊆ new must hold
	if c.Direction == diff.Output {
		src, dst = nj, oj // output: new ⊆ old must hold
	}
	insts := append(instances(c.Old, oj), instances(c.New, nj)...)
	var breaking, widening any
	for _, in := range insts {
		s, d := src.valid(in), dst.valid(in)
		if s && !d && breaking == nil {
			breaking = in
		}
		if !s && d && widening == nil {
			widening = in
		}
	}
	v.differ = breaking != nil || widening != nil
	v.failures = checkVerdict(changes, src, dst, breaking, widening)
	return v
}

// checkVerdict lists the contradictions between the findings of one
// direction and the validator's view: breaking is an instance the source
// side accepts and the target rejects (nil when none was found), widening
// the reverse.
func checkVerdict(changes []diff.Change, src, dst *judge, breaking, widening any) []dfFailure {
	var out []dfFailure
	gated := false
	for _, ch := range changes {
		if ch.Level >= diff.Facade {
			gated = true
		}
	}
	if breaking != nil && !gated {
		out = append(out, dfFailure{Kind: "false-safe", Detail: "no breaking or facade finding, but an instance the old contract accepts fails the new one", Instance: breaking})
	}
	if (breaking != nil || widening != nil) && len(changes) == 0 {
		in := breaking
		if in == nil {
			in = widening
		}
		out = append(out, dfFailure{Kind: "missing-finding", Detail: "the accepted sets differ but there is no finding", Instance: in})
	}
	for _, ch := range changes {
		out = append(out, checkWitness(ch, src, dst, breaking)...)
	}
	return out
}

// checkWitness checks one finding's proof: a witness must be accepted by
// the source side and rejected by the target; a breaking or facade finding
// without one must say why (NoWitness) or be undecided.
func checkWitness(ch diff.Change, src, dst *judge, breaking any) []dfFailure {
	hasW := len(ch.Witness) > 0 && !bytes.Equal(ch.Witness, []byte("null"))
	if !hasW {
		if ch.Level >= diff.Facade && !ch.Undecided && ch.NoWitness == "" {
			return []dfFailure{{Kind: "unproven", Detail: fmt.Sprintf("%s at %q is %s without witness, reason or undecided flag", ch.Rule, ch.Path, ch.Level), Instance: breaking}}
		}
		return nil
	}
	if ch.Level < diff.Facade {
		return nil // a safe finding's example is illustrative
	}
	var w any
	if err := unmarshalNumbers(ch.Witness, &w); err != nil {
		return []dfFailure{{Kind: "bad-witness", Detail: fmt.Sprintf("%s: witness %s is not JSON: %v", ch.Rule, ch.Witness, err)}}
	}
	if !src.valid(w) || dst.valid(w) {
		return []dfFailure{{Kind: "bad-witness", Detail: fmt.Sprintf("%s at %q: witness does not prove it (old side accepts: %v, new side rejects: %v)", ch.Rule, ch.Path, src.valid(w), !dst.valid(w)), Instance: w}}
	}
	return nil
}

// compareCase runs the engine on one-tool sets built from the pair, with
// strict open content so that its verdicts follow pure set semantics.
func compareCase(c dfCase) (*diff.Report, error) {
	set := func(name string, s any) (*toolset.Set, error) {
		tool := map[string]any{"name": "t", "description": "d"}
		if c.Direction == diff.Output {
			tool["inputSchema"] = map[string]any{"type": "object"}
			tool["outputSchema"] = s
		} else {
			tool["inputSchema"] = s
		}
		return toolset.Decode(name, mustJSON(map[string]any{"tools": []any{tool}}))
	}
	o, err := set("old", c.Old)
	if err != nil {
		return nil, err
	}
	n, err := set("new", c.New)
	if err != nil {
		return nil, err
	}
	return diff.Compare(o, n, diff.Options{StrictOpenContent: true}), nil
}

// directionChanges returns the findings of one direction.
func directionChanges(r *diff.Report, d diff.Direction) []diff.Change {
	var out []diff.Change
	for _, ch := range r.Changes {
		if ch.Direction == d {
			out = append(out, ch)
		}
	}
	return out
}

func summarize(changes []diff.Change) string {
	var b strings.Builder
	for _, ch := range changes {
		fmt.Fprintf(&b, "\n    %s %s %q witness=%s", ch.Level, ch.Rule, ch.Path, ch.Witness)
		if ch.Undecided {
			b.WriteString(" undecided")
		}
	}
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

// judge validates instances against one schema document with
// santhosh-tekuri/jsonschema/v6, and against its subschemas by JSON
// Pointer (the generator uses them to put valid values first).
type judge struct {
	c    *jsonschema.Compiler
	root *jsonschema.Schema
	sub  map[string]*jsonschema.Schema
}

const judgeURL = "mem:///differential.json"

func newJudge(doc any) (*judge, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(judgeURL, deepCopy(doc)); err != nil {
		return nil, err
	}
	s, err := c.Compile(judgeURL)
	if err != nil {
		return nil, err
	}
	return &judge{c: c, root: s, sub: map[string]*jsonschema.Schema{}}, nil
}

func (j *judge) valid(inst any) bool { return j.root.Validate(inst) == nil }

// validAt reports whether inst validates against the subschema at ptr;
// ok is false when that subschema cannot be compiled on its own.
func (j *judge) validAt(ptr []string, inst any) (valid, ok bool) {
	key := pointerString(ptr)
	s, seen := j.sub[key]
	if !seen {
		if !plainPointer(ptr) {
			j.sub[key] = nil
			return false, false
		}
		s, _ = j.c.Compile(judgeURL + "#" + key)
		j.sub[key] = s
	}
	if s == nil {
		return false, false
	}
	return s.Validate(inst) == nil, true
}

// plainPointer reports whether every token can go into a URL fragment
// unescaped.
func plainPointer(ptr []string) bool {
	for _, tok := range ptr {
		for _, r := range tok {
			if !(r == '_' || r == '-' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

func pointerString(ptr []string) string {
	if len(ptr) == 0 {
		return ""
	}
	return "/" + strings.Join(ptr, "/")
}

// loadCorpus returns every input and output schema of testdata/realdata/
// (deduplicated), each with its direction.
func loadCorpus(t *testing.T) []dfCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "realdata", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no realdata: %v", err)
	}
	seen := map[string]bool{}
	var out []dfCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := unmarshalNumbers(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tl := range doc.Tools {
			for key, d := range map[string]diff.Direction{"inputSchema": diff.Input, "outputSchema": diff.Output} {
				s, ok := tl[key].(map[string]any)
				if !ok {
					continue
				}
				k := string(d) + string(mustJSON(s))
				if !seen[k] {
					seen[k] = true
					out = append(out, dfCase{Direction: d, Old: s})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b dfCase) int {
		return strings.Compare(string(a.Direction)+string(mustJSON(a.Old)), string(b.Direction)+string(mustJSON(b.Old)))
	})
	return out
}

func unmarshalNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
