package callcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
)

// TestCheckCallVerdict pins the typed result serve and replay map from:
// the outcome, the translated call and its steps, and for a rejection the
// problems by JSON Pointer in the arguments they were found in (as routed
// for an alias), and the pointers Ignore dropped errors at.
func TestCheckCallVerdict(t *testing.T) {
	t.Parallel()
	c, s := compile(t, `{"type":"object","properties":{"query":{"type":"string"},"key":{"type":"integer"},"mode":{"enum":["fast"]}},"required":["query"],"additionalProperties":false}`)
	ignoreKey := func(args any, err error) ([]string, error) {
		if m, _ := args.(map[string]any); m["key"] == "[redacted]" && err != nil {
			delete(m, "key") // the test's stand-in for fixtures.IgnoreRedacted
			defer func() { m["key"] = "[redacted]" }()
			return []string{"/key"}, c.Validate(args)
		}
		return nil, err
	}
	tool := &Tool{Name: "search", Schema: s, Compiled: c, Ignore: ignoreKey, Facade: &facade.Block{
		Rename:  map[string]string{"q": "query"},
		Aliases: []facade.Alias{{Name: "find", Inject: map[string]any{"mode": "fast"}}},
	}}
	args := func(src string) map[string]any { return decode(t, src).(map[string]any) }
	type got struct {
		Outcome   Outcome
		Tool      string
		Steps     []facade.Step
		Problems  []Problem
		Arguments map[string]any
		Unchecked []string
	}
	for _, tc := range []struct {
		call facade.Call
		want got
	}{
		{facade.Call{Tool: "search", Arguments: args(`{"query":"a","key":"[redacted]"}`)},
			got{Outcome: Accepted, Tool: "search", Unchecked: []string{"/key"}}},
		{facade.Call{Tool: "search", Arguments: args(`{"q":"a"}`)},
			got{Outcome: Translated, Tool: "search", Steps: []facade.Step{{Kind: facade.StepRename, Detail: "q -> query", Rules: []string{"/rename/q"}}}}},
		{facade.Call{Tool: "find", Arguments: args(`{"p":1}`)},
			got{Outcome: Rejected, Problems: []Problem{
				{Pointer: "/p", Message: "unexpected property (allowed: query, key, mode)"},
				{Pointer: "/query", Message: "missing required property; expected a string"},
			}, Arguments: args(`{"p":1,"mode":"fast"}`)}},
		{facade.Call{Tool: "nope"}, got{Outcome: Unknown}},
	} {
		target := tool
		if tc.call.Tool == "nope" {
			target = nil
		}
		v := CheckCall(target, tc.call, []string{"find", "search"})
		g := got{Outcome: v.Outcome, Tool: v.Call.Tool, Steps: v.Steps, Problems: v.Problems, Arguments: v.Arguments, Unchecked: v.Unchecked}
		if d := cmp.Diff(tc.want, g); d != "" {
			t.Errorf("%s %v: mismatch (-want +got):\n%s", tc.call.Tool, tc.call.Arguments, d)
		}
		if (v.Message == "") != (v.Outcome == Accepted || v.Outcome == Translated) {
			t.Errorf("%s: outcome %d with message %q", tc.call.Tool, v.Outcome, v.Message)
		}
	}
	broken := &Tool{Name: "broken", Err: errors.New("the tool has no inputSchema")}
	if v := CheckCall(broken, facade.Call{Tool: "broken"}, nil); v.Outcome != Rejected || v.Message != "the tool has no inputSchema" {
		t.Errorf("a tool without a schema: %+v", v)
	}
}

// TestCheckCallRejectsTranslatedShape: the independent checker's
// replay-rename-facade case, third call {"q": 3} under rename q → query.
// The rejection described the call as sent ("/q: unexpected property",
// "/query: missing required property") although the facade had already
// fixed both; the real fault, that query is 3 and not a string, was never
// said. A call the facade changed is judged as translated.
func TestCheckCallRejectsTranslatedShape(t *testing.T) {
	t.Parallel()
	c, s := compile(t, `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`)
	tool := &Tool{Name: "search_code", Schema: s, Compiled: c, Facade: &facade.Block{Rename: map[string]string{"q": "query"}}}
	v := CheckCall(tool, facade.Call{Tool: "search_code", Arguments: decode(t, `{"q":3}`).(map[string]any)}, nil)
	want := []Problem{{Pointer: "/query", Message: "got number, expected a string"}}
	if v.Outcome != Rejected || !cmp.Equal(v.Problems, want) {
		t.Errorf("outcome %v problems %+v, want rejected with %+v\n%s", v.Outcome, v.Problems, want, v.Message)
	}
	if !strings.Contains(v.Message, "after the facade") {
		t.Errorf("message does not say the call was translated:\n%s", v.Message)
	}
}
