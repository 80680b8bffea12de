package diff

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/toolset"
)

func mustSet(t *testing.T, doc string) *toolset.Set {
	t.Helper()
	s, err := toolset.Decode("test", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Old: a, b, c. New: a with a changed description, c with readOnlyHint;
// b removed. Findings: description-changed a (safe), tool-removed b
// (breaking), annotation-less-cautious c (safe).
const cfgOld = `{"tools":[
 {"name":"a","description":"one","inputSchema":{"type":"object"}},
 {"name":"b","inputSchema":{"type":"object"}},
 {"name":"c","inputSchema":{"type":"object"}}]}`

const cfgNew = `{"tools":[
 {"name":"a","description":"two","inputSchema":{"type":"object"}},
 {"name":"c","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

type cfgView struct {
	Rule, Tool, Level string
	Ignored           bool
	Reason            string
	Notice            string
}

func view(r *Report) []cfgView {
	var out []cfgView
	for _, c := range r.Changes {
		v := cfgView{Rule: c.Rule, Tool: c.Tool, Level: c.Level.String(), Ignored: c.Ignored, Reason: c.IgnoreReason}
		if c.Notice != nil {
			v.Notice = *c.Notice
		}
		out = append(out, v)
	}
	return out
}

const (
	descNotice = "descriptions steer the model: review the new text, it changes when and how models call this tool"
	roNotice   = "security: the tool now claims it does not modify its environment; clients may run it without asking the user first. Verify the claim."
)

func TestOptionsLevelsAndIgnores(t *testing.T) {
	t.Parallel()
	now := day("2026-03-01")
	tests := []struct {
		name      string
		opts      Options
		want      []cfgView
		level     Level
		gateLevel Level
	}{
		{
			name: "defaults",
			opts: Options{Now: now},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "breaking"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "safe", Notice: roNotice},
			},
			level: Breaking, gateLevel: Breaking,
		},
		{
			name: "level override raises a rule and lowers another",
			opts: Options{Now: now, Levels: map[string]Level{"annotation-less-cautious": Breaking, "tool-removed": Facade}},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "facade"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "breaking", Notice: roNotice},
			},
			level: Breaking, gateLevel: Breaking,
		},
		{
			name: "active ignore: finding stays, marked; gate level drops",
			opts: Options{Now: now, Ignores: []Ignore{{Rule: "tool-removed", Tool: "b", Reason: "retired", Expires: day("2026-04-01")}}},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "breaking", Ignored: true, Reason: "retired"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "safe", Notice: roNotice},
			},
			level: Breaking, gateLevel: Safe,
		},
		{
			name: "expired ignore stops ignoring and says so",
			opts: Options{Now: now, Ignores: []Ignore{{Rule: "tool-removed", Tool: "b", Reason: "retired", Expires: day("2026-03-01")}}},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "breaking", Notice: "ignore expired on 2026-03-01 (it said: retired); this finding counts again"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "safe", Notice: roNotice},
			},
			level: Breaking, gateLevel: Breaking,
		},
		{
			name: "ignore by tool only (every rule), path that does not match",
			opts: Options{Now: now, Ignores: []Ignore{
				{Tool: "b", Reason: "whole tool"},
				{Rule: "description-changed", Path: "/title", Reason: "wrong path"},
			}},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "breaking", Ignored: true, Reason: "whole tool"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "safe", Notice: roNotice},
			},
			level: Breaking, gateLevel: Safe,
		},
		{
			name: "path prefix matches; the expired entry adds nothing when an active one matches",
			opts: Options{Now: now, Ignores: []Ignore{
				{Rule: "annotation-less-cautious", Tool: "c", Path: "/annotations", Reason: "old", Expires: day("2026-01-01")},
				{Rule: "annotation-less-cautious", Path: "/annotations", Reason: "audited"},
			}},
			want: []cfgView{
				{Rule: "description-changed", Tool: "a", Level: "safe", Notice: descNotice},
				{Rule: "tool-removed", Tool: "b", Level: "breaking"},
				{Rule: "annotation-less-cautious", Tool: "c", Level: "safe", Notice: roNotice, Ignored: true, Reason: "audited"},
			},
			level: Breaking, gateLevel: Breaking,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(mustSet(t, cfgOld), mustSet(t, cfgNew), tt.opts)
			if d := cmp.Diff(tt.want, view(r)); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
			if r.Level != tt.level || r.GateLevel() != tt.gateLevel {
				t.Errorf("Level, GateLevel = %v, %v; want %v, %v", r.Level, r.GateLevel(), tt.level, tt.gateLevel)
			}
			if err := tt.opts.Check(); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

func TestGateLevelNone(t *testing.T) {
	t.Parallel()
	r := Compare(mustSet(t, cfgOld), mustSet(t, cfgOld), Options{Now: day("2026-01-01")})
	if r.Level != LevelNone || r.GateLevel() != LevelNone || len(r.Changes) != 0 {
		t.Errorf("identical sets: level %v gate %v changes %v", r.Level, r.GateLevel(), r.Changes)
	}
}

func TestOptionsCheck(t *testing.T) {
	t.Parallel()
	opts := Options{
		Levels: map[string]Level{"no-such-rule": Safe, "tool-removed": LevelNone},
		Ignores: []Ignore{
			{Reason: "nothing named"},
			{Rule: "typo-rule", Tool: "x"},
			{Rule: "tool-removed", Path: "properties/a"},
		},
	}
	err := opts.Check()
	if err == nil {
		t.Fatal("Check accepted bad options")
	}
	for _, want := range []string{
		`levels: unknown rule "no-such-rule"`,
		`levels: rule "tool-removed": level none is not safe, facade or breaking`,
		"ignores[0]: names neither a rule nor a tool",
		`ignores[1]: unknown rule "typo-rule"`,
		`ignores[2]: path "properties/a" is not a JSON Pointer`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %q lacks %q", err, want)
		}
	}
}
