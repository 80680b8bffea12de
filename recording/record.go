package recording

import (
	"encoding/json"
	"errors"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

// Call is the record of one tools/call: one line of mcpctl JSON Lines
// (docs/replay.md#fixture-formats),
//
//	{"tool":"search_docs","arguments":{"q":"x","token":"[redacted]"},"generation":"<fingerprint>","expect":"translated"}
//
// with the arguments as sent (member order and number spelling kept),
// redacted by Redactor.
type Call struct {
	Tool string
	// Args is the arguments object as sent; empty or null is {}.
	Args json.RawMessage
	// Generation is the fingerprint of the generation the call ran
	// against ("" when unknown: not written).
	Generation string
	// Expect is the outcome replay gives the call (accepted, translated,
	// rejected, unknown-tool; "" when unknown: not written).
	Expect string
	// Translated is the arguments a facade made of Args (nil when the
	// call was not translated); redaction follows values into them.
	Translated []byte
	// Facade is the facade of the tool the call reached (nil: none): an
	// argument its renames carry into a redacted position is redacted
	// under its old name too, translated or not.
	Facade *facade.Block
	// Redactor decides what is redacted (nil: the secret-looking names).
	Redactor *Redactor

	queued bool // Writer.Put took it
}

// The errors of a call that cannot be written as a record.
var (
	ErrNotObject = errors.New("the arguments are not a JSON object")
	ErrNotJSON   = errors.New("the arguments are not strict JSON")
	ErrNoTool    = errors.New("the tool name is empty")
)

// AppendRecord appends c, redacted, as one mcpctl JSON Lines record and a
// newline. A call without a tool name (ErrNoTool) or whose arguments are
// not strict JSON (ErrNotJSON: duplicate member names included) or not an
// object (ErrNotObject) cannot be a record.
func AppendRecord(dst []byte, c *Call) ([]byte, error) {
	if c.Tool == "" {
		return dst, ErrNoTool
	}
	args := canon.Value{Kind: canon.Object}
	if len(c.Args) > 0 && string(c.Args) != "null" {
		v, err := canon.Parse(c.Args)
		if err != nil {
			return dst, ErrNotJSON
		}
		if v.Kind != canon.Object {
			return dst, ErrNotObject
		}
		args = v
	}
	c.Redactor.RedactCall(&args, c.Translated, c.Facade)
	dst = append(dst, `{"tool":`...)
	dst = canon.AppendString(dst, c.Tool)
	dst = append(dst, `,"arguments":`...)
	dst = canon.AppendOrdered(dst, &args)
	if c.Generation != "" {
		dst = append(dst, `,"generation":`...)
		dst = canon.AppendString(dst, c.Generation)
	}
	if c.Expect != "" {
		dst = append(dst, `,"expect":`...)
		dst = canon.AppendString(dst, c.Expect)
	}
	return append(dst, "}\n"...), nil
}
