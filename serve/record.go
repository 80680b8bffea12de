package serve

import (
	"encoding/json"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/recording"
)

// Recording (--record): every tools/call that reaches a generation is
// appended by a recording.Writer as one line of mcpctl JSON Lines: tool
// is the name the client called (an alias stays the alias); arguments are
// as sent, redacted by the record block of the config (see
// serveconfig.RecordConfig); generation is the fingerprint of the
// generation the call ran against; expect is the outcome replay gives the
// same call against the same config: accepted, translated, rejected or
// unknown-tool (a handler that failed is still accepted or translated: its
// arguments were); a call refused at --max-calls has no expect (its
// arguments were not validated). Calls refused because the server is
// shutting down reach no generation and are not recorded.

// startRecord begins the record of one call against generation g (nil
// when not recording); the redaction is live's, the generation published
// last (a reload that adds a redact entry applies to pinned sessions too).
func startRecord(w *recording.Writer, tool string, args json.RawMessage, g, live *Generation) *recording.Call {
	if w == nil {
		return nil
	}
	c := &recording.Call{Tool: tool, Args: args, Generation: g.Fingerprint}
	if live == nil {
		live = g
	}
	if live.Config != nil {
		c.Redactor = live.Config.Record.Redactor()
	}
	return c
}

// recordRoute records the facade of the tool the call reached (nil: not
// recording).
func recordRoute(c *recording.Call, f *facade.Block) {
	if c != nil {
		c.Facade = f
	}
}

// recordOutcome sets the outcome of c (nil: not recording).
func recordOutcome(c *recording.Call, o fixtures.Outcome) {
	if c != nil {
		c.Expect = string(o)
	}
}

// recordPassed records a call whose arguments validated: accepted when as
// sent, translated (with the arguments the facade made) when the tool's
// facade carried it.
func recordPassed(c *recording.Call, asSent bool, translated []byte) {
	if c == nil {
		return
	}
	if asSent {
		c.Expect = string(fixtures.Accepted)
		return
	}
	c.Expect, c.Translated = string(fixtures.Translated), translated
}
