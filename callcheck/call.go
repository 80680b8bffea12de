package callcheck

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// Outcome is what CheckCall decided about one call.
type Outcome int

// The outcomes of CheckCall (docs/replay.md#outcomes).
const (
	Accepted   Outcome = iota + 1 // valid against the input schema as sent
	Translated                    // valid after the tool's facade
	Rejected                      // invalid, facade or not
	Unknown                       // no tool or alias of that name
)

// Tool is what a call is checked against: a tool's input schema and facade.
type Tool struct {
	Name     string
	Schema   *canon.Value     // the input schema
	Compiled *schema.Compiled // Schema compiled
	Facade   *facade.Block    // nil when the tool has none
	// Err, when set, rejects every call with its text: the input schema
	// is missing or does not compile.
	Err error
	// Ignore, when set, filters every validation error: it returns the
	// JSON Pointers of the values whose errors it dropped and the error
	// left (nil when none is), as fixtures.IgnoreRedacted does for
	// recorded secrets.
	Ignore func(args any, err error) (unchecked []string, rest error)
}

// Verdict is the decision about one call.
type Verdict struct {
	Outcome Outcome
	// Call is the call to hand the tool: the call as sent when accepted,
	// the translated call when translated.
	Call facade.Call
	// Steps are the facade steps applied, in order (translated only).
	Steps []facade.Step
	// Message is the self-healing text of a rejected or unknown-tool
	// call (see Message and UnknownTool); for a call through an alias it
	// starts "routed to TOOL: ".
	Message string
	// Problems are the validation errors of a rejected call, located by
	// JSON Pointer into Arguments (see Problems).
	Problems []Problem
	// Arguments are the arguments Problems and Message are about: as sent,
	// or for an alias as routed (rejected only).
	Arguments map[string]any
	// Unchecked are the pointers Tool.Ignore dropped errors at, into the
	// arguments the outcome was decided on.
	Unchecked []string
}

// CheckCall decides one call (docs/replay.md#outcomes, docs/serve.md#config):
// unknown-tool when t is nil (the message names the closest of names);
// accepted when the arguments validate as sent; translated when the call
// names an alias of t, or does not validate, and facade.Apply with t's
// facade turns it into a call that validates; rejected otherwise. A
// rejection reports the first failed validation with the arguments it was
// found in (for an alias, as routed); an alias that cannot apply (an
// inject contradicting an argument) reports that, unless the arguments are
// invalid as sent, which is then reported instead, as it is for a facade
// the engine cannot apply. serve and replay both answer with it.
func CheckCall(t *Tool, call facade.Call, names []string) Verdict {
	if t == nil {
		return Verdict{Outcome: Unknown, Message: UnknownTool(call.Tool, names)}
	}
	if t.Err != nil {
		return Verdict{Outcome: Rejected, Message: t.Err.Error(), Problems: []Problem{{Message: t.Err.Error()}}}
	}
	if call.Arguments == nil {
		call.Arguments = map[string]any{}
	}
	unchecked, verr := t.validate(call.Arguments)
	if call.Tool == t.Name && (verr == nil || t.Facade == nil) {
		if verr == nil {
			return Verdict{Outcome: Accepted, Call: call, Unchecked: unchecked}
		}
		return t.reject(call.Tool, call.Arguments, verr, unchecked)
	}
	return t.translate(call, verr, unchecked)
}

// Accepts returns CheckCall's accepted verdict when call names t and its
// arguments validate as sent, without trying t's facade or building the
// message of a rejection (for a caller that has somewhere else to send a
// call t refuses: serve's routing by shape); false otherwise.
func (t *Tool) Accepts(call facade.Call) (Verdict, bool) {
	if t.Err != nil || call.Tool != t.Name {
		return Verdict{}, false
	}
	if call.Arguments == nil {
		call.Arguments = map[string]any{}
	}
	unchecked, err := t.validate(call.Arguments)
	if err != nil {
		return Verdict{}, false
	}
	return Verdict{Outcome: Accepted, Call: call, Unchecked: unchecked}, true
}

// translate applies t's facade to call, whose arguments validate as sent
// when verr is nil (unchecked at the pointers sentUnchecked).
func (t *Tool) translate(call facade.Call, verr error, sentUnchecked []string) Verdict {
	var firstArgs, failedArgs map[string]any
	var firstErr, failedErr error
	var firstUnchecked, failedUnchecked, lastUnchecked []string
	validate := func(args map[string]any) error {
		unchecked, err := t.validate(args)
		lastUnchecked = unchecked
		if err != nil {
			failedArgs, failedErr, failedUnchecked = schema.CloneInstance(args).(map[string]any), err, unchecked
			if firstErr == nil {
				firstArgs, firstErr, firstUnchecked = failedArgs, err, unchecked
			}
		}
		return err
	}
	var f facade.File
	if t.Facade != nil {
		f = facade.File{t.Name: *t.Facade}
	}
	out, steps, err := facade.Apply(f, t.Name, validate, call)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return Verdict{Outcome: Translated, Call: out, Steps: steps, Unchecked: lastUnchecked}
	case errors.As(err, &ve) && failedErr != firstErr:
		// The facade changed the call and it still fails: say what is
		// wrong with the call as translated, not as sent.
		v := t.reject(call.Tool, failedArgs, failedErr, failedUnchecked)
		v.Message = "after the facade: " + v.Message
		return v
	case errors.As(err, &ve) && firstErr != nil:
		return t.reject(call.Tool, firstArgs, firstErr, firstUnchecked)
	case verr == nil:
		return t.reject(call.Tool, call.Arguments, err, sentUnchecked)
	}
	return t.reject(call.Tool, call.Arguments, verr, sentUnchecked)
}

// validate validates args against t's input schema through t.Ignore.
func (t *Tool) validate(args map[string]any) (unchecked []string, err error) {
	err = t.Compiled.Validate(any(args))
	if t.Ignore == nil {
		return nil, err
	}
	return t.Ignore(any(args), err)
}

// reject is the verdict for args, called as called, that err rejected.
func (t *Tool) reject(called string, args map[string]any, err error, unchecked []string) Verdict {
	ps := Problems(t.Schema, any(args), err)
	var b strings.Builder
	if called != t.Name {
		b.WriteString("routed to " + t.Name + ": ")
	}
	writeMessage(&b, t.Compiled, t.Schema, any(args), ps)
	return Verdict{Outcome: Rejected, Message: b.String(), Problems: ps, Arguments: args, Unchecked: unchecked}
}
