package serve

import (
	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// routeByShape decides where a call of a client that sees green's list
// (stateless HTTP, the 2026-07-28 revision) goes during a blue/green
// rollout, by the shape of its arguments (docs/serve.md#bluegreen):
//
//  1. valid against green's input schema as sent: green;
//  2. else valid as sent against blue's accepted input schema, while blue
//     is alive: blue, unchanged (an old client's call still reaches the
//     server that understands it);
//  3. else translated by green's facade into a call green accepts: green,
//     translated;
//  4. else neither, with green's self-healing message (blue's when only
//     blue has the tool and blue is alive; the unknown-tool message when no
//     live side has it, naming the closest of names).
//
// green or blue is nil when that side has no such tool. The verdict is
// callcheck.CheckCall's for the side chosen; it is the green verdict for
// SideNeither.
func routeByShape(green, blue *callcheck.Tool, blueAlive bool, call facade.Call, names []string) (serveconfig.Side, callcheck.Verdict) {
	if !blueAlive {
		blue = nil
	}
	if green != nil {
		if v, ok := green.Accepts(call); ok {
			return serveconfig.SideGreen, v
		}
	}
	if blue != nil {
		if v, ok := blue.Accepts(call); ok {
			return serveconfig.SideBlue, v
		}
	}
	switch {
	case green != nil:
		gv := callcheck.CheckCall(green, call, names)
		if gv.Outcome == callcheck.Translated {
			return serveconfig.SideGreen, gv
		}
		return serveconfig.SideNeither, gv
	case blue != nil && call.Tool == blue.Name:
		asSent := *blue
		asSent.Facade = nil // blue's accepted schema, as sent: no translation
		return serveconfig.SideNeither, callcheck.CheckCall(&asSent, call, names)
	}
	return serveconfig.SideNeither, callcheck.CheckCall(nil, call, names)
}
