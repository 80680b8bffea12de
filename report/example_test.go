package report_test

import (
	"encoding/json"
	"os"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/report"
)

func ExampleRender() {
	rep := &diff.Report{
		Level:  diff.Breaking,
		Counts: map[string]int{"safe": 0, "facade": 0, "breaking": 1},
		Old:    diff.Side{Source: "old.json"},
		New:    diff.Side{Source: "new.json"},
		Changes: []diff.Change{{
			Rule: "input-enum-value-removed", Level: diff.Breaking, Direction: diff.Input,
			Tool: "search", Path: "/properties/mode/enum",
			Message: `/properties/mode no longer allows "auto"`, Witness: json.RawMessage(`{"mode":"auto"}`),
		}},
	}
	_ = report.Render(os.Stdout, "github", rep, report.Options{FailOn: diff.Breaking})
	// Output:
	// ::error title=search /properties/mode/enum::[breaking] input-enum-value-removed (input): /properties/mode no longer allows "auto"%0Awitness: {"mode":"auto"}
	// mcpctl diff: level breaking (1 breaking); fails: gate level breaking is at or above --fail-on breaking
}
