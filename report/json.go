package report

import (
	"encoding/json"
	"io"

	"github.com/mcpctl/mcpctl/diff"
)

// jsonReport is the docs/diff.md#output-and-exit-codes contract (level, counts, old, new, changes)
// plus the gate.
type jsonReport struct {
	Level   diff.Level     `json:"level"`
	Counts  map[string]int `json:"counts"`
	Old     diff.Side      `json:"old"`
	New     diff.Side      `json:"new"`
	Changes []diff.Change  `json:"changes"`
	Gate    jsonGate       `json:"gate"`
}

// jsonGate says how the report fares against --fail-on: Level is the gate
// level (covered facade findings count as safe, ignored ones not at all).
type jsonGate struct {
	Level  diff.Level `json:"level"`
	FailOn string     `json:"failOn"`
	Fails  bool       `json:"fails"`
}

// JSON writes the report as the public JSON contract of docs/diff.md#output-and-exit-codes:
//
//	{"level", "counts": {"safe","facade","breaking"}, "old": {"source","fingerprint"},
//	 "new": {…}, "changes": [{"rule","level","direction","tool","path","old","new",
//	 "message","witness","facade","notice", …}], "gate": {"level","failOn","fails"}}
//
// level is "none" when there is no finding; absent values are null; extra
// change fields (undecided, reason, covered, ignored, ignoreReason,
// noWitness, ruleBug) appear only when set. Indented by two spaces, HTML
// characters not escaped, ending with a newline.
func JSON(w io.Writer, r *diff.Report, opts Options) error {
	out := jsonReport{
		Level:   r.Level,
		Counts:  countsOf(r),
		Old:     r.Old,
		New:     r.New,
		Changes: r.Changes,
		Gate:    jsonGate{Level: gateLevel(r, opts), FailOn: FailOnString(opts.failOn()), Fails: Fails(r, opts)},
	}
	if out.Changes == nil {
		out.Changes = []diff.Change{}
	}
	return encodeJSON(w, out)
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
