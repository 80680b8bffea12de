package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/schema"
)

// Call outcomes, for metrics and /status.
const (
	OutcomeOK      = "ok"      // the handler ran and its result is not an error
	OutcomeError   = "error"   // the handler failed or its output broke its outputSchema
	OutcomeInvalid = "invalid" // the arguments did not validate (no handler ran)
	OutcomeUnknown = "unknown" // no such tool (a protocol error)
)

// callStats counts calls per tool and outcome, and facade translations per
// tool and facade rule, without locks on the call path.
type callStats struct {
	tools   sync.Map // tool name -> *toolCounts
	facades sync.Map // "tool\x00rule" -> *atomic.Int64
}

type toolCounts struct {
	ok, err, invalid atomic.Int64
}

// toolMeters are one tool's counters and metrics, resolved once (when a
// generation is built) so the call path only does atomic adds: no map or
// label lookups, no locks.
type toolMeters struct {
	counts              *toolCounts
	okC, errC, invalidC prometheus.Counter
	latency             prometheus.Observer
}

func (m *toolMeters) succeeded() { m.counts.ok.Add(1); m.okC.Inc() }
func (m *toolMeters) failed()    { m.counts.err.Add(1); m.errC.Inc() }
func (m *toolMeters) invalid()   { m.counts.invalid.Add(1); m.invalidC.Inc() }

// toolMeters returns the meters of a tool name (created on first use).
func (s *Server) toolMeters(name string) *toolMeters {
	if v, ok := s.meters.Load(name); ok {
		return v.(*toolMeters)
	}
	m := &toolMeters{
		counts:   s.calls.tool(name),
		okC:      s.metrics.calls.WithLabelValues(name, OutcomeOK),
		errC:     s.metrics.calls.WithLabelValues(name, OutcomeError),
		invalidC: s.metrics.calls.WithLabelValues(name, OutcomeInvalid),
		latency:  s.metrics.callLatency.WithLabelValues(name),
	}
	v, _ := s.meters.LoadOrStore(name, m)
	return v.(*toolMeters)
}

func (c *callStats) tool(name string) *toolCounts {
	if v, ok := c.tools.Load(name); ok {
		return v.(*toolCounts)
	}
	v, _ := c.tools.LoadOrStore(name, &toolCounts{})
	return v.(*toolCounts)
}

func (c *callStats) facade(tool, rule string) {
	key := tool + "\x00" + rule
	v, ok := c.facades.Load(key)
	if !ok {
		v, _ = c.facades.LoadOrStore(key, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// acquireLive returns the live generation with a call reference taken.
func (s *Server) acquireLive() *Generation {
	for {
		g := s.live.Load()
		if g.acquire() {
			return g
		}
	}
}

// errShuttingDown answers calls that arrive while the server drains.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server is shutting down"}

// callTool validates and runs one call against the one generation it loads
// (docs/serve.md#generations-and-the-reload-pipeline, docs/serve.md#active-conversations-pinning): arguments are checked against the input schema (after
// the tool's facade when they do not validate as sent) before any handler
// runs; the handler's output becomes content, and structuredContent when the
// tool has an outputSchema (validated against it).
func (s *Server) callTool(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest) (mcp.Result, error) {
	s.inflight.add()
	defer s.inflight.done()
	if s.draining.Load() {
		return nil, errShuttingDown
	}
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()
	g := s.acquireFor(ss)
	defer g.release()

	name := req.Params.Name
	// The record (nil unless --record) goes to the writer once the
	// outcome is known: before the handler runs, so a call abandoned at
	// shutdown is recorded too.
	rec := s.rec.start(name, req.Params.Arguments, g, s.live.Load())
	defer s.rec.put(rec)
	t, alias := g.tools[name], (*aliasRoute)(nil)
	if t == nil {
		if alias = g.aliases[name]; alias != nil {
			t = alias.target
		}
	}
	if t == nil {
		s.metrics.unknownCalls.Inc()
		rec.set(fixtures.UnknownTool)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: callcheck.UnknownTool(name, g.names)}
	}
	rec.route(t.facade)
	m := t.meters
	if m == nil {
		m = s.toolMeters(t.name)
	}

	args, msg := t.parseArguments(req.Params.Arguments)
	if msg != "" {
		m.invalid()
		rec.set(fixtures.Rejected)
		return errorResult(msg), nil
	}
	argsJSON, bad, verr := s.facadeArguments(t, alias, name, &args, req.Params.Arguments)
	if verr != nil {
		m.invalid()
		rec.set(fixtures.Rejected)
		return errorResult(invalidArguments(t, name, bad, verr)), nil
	}
	rec.passed(bad != nil, argsJSON) // facadeArguments returns bad on success only for arguments valid as sent
	s.rec.put(rec)

	start := time.Now()
	out, err := t.handler.Call(ctx, argsJSON)
	m.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		m.failed()
		s.log.Warn("tool call failed", "tool", t.name, "generation", g.Version, "kind", failureKind(ctx, err))
		return errorResult(fmt.Sprintf("Tool %q failed: %v", t.name, err)), nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out.Body)}}}
	if t.structured != nil {
		res.StructuredContent = json.RawMessage(t.structured)
	} else if t.out != nil {
		v, perr := canon.Parse(out.Body)
		if perr != nil {
			m.failed()
			s.log.Error("handler output is not JSON but the tool declares an outputSchema", "tool", t.name, "generation", g.Version)
			return errorResult(fmt.Sprintf("Tool %q produced output that is not JSON, but it declares an outputSchema.", t.name)), nil
		}
		inst := schema.Instance(&v)
		if oerr := t.out.Validate(inst); oerr != nil {
			m.failed()
			ps := callcheck.Problems(t.outValue, inst, oerr)
			s.log.Error("handler output violates the tool's outputSchema", "tool", t.name, "generation", g.Version, "at", problemPointers(ps, "(output)"))
			return errorResult(fmt.Sprintf("Tool %q produced output that violates its own outputSchema:%s", t.name, callcheck.Lines(ps, "(output)"))), nil
		}
		res.StructuredContent = json.RawMessage(appendOrdered(nil, &v))
	}
	m.succeeded()
	return res, nil
}

func failureKind(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return "cancelled"
	case errors.Is(err, errOutputTooLarge):
		return "output-too-large"
	case errors.As(err, new(*timeoutError)):
		return "timeout"
	case errors.Is(err, errExecBusy), errors.Is(err, errExecWait):
		return "busy"
	}
	return "failed"
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}

// parseArguments reads the arguments strictly; absent or null is {}.
// Arguments that are not strict JSON or not an object get the text of the
// isError result instead, callcheck's message like any invalid arguments:
// the problem (located in the JSON, or what the input schema expects) and a
// valid example.
func (t *liveTool) parseArguments(raw json.RawMessage) (canon.Value, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return canon.Value{Kind: canon.Object}, ""
	}
	v, err := canon.Parse(raw)
	if err != nil {
		return v, callcheck.Message(t.in, t.inValue, nil, fmt.Errorf("not valid JSON (%w)", err))
	}
	if v.Kind != canon.Object {
		inst := schema.Instance(&v)
		if err := t.in.Validate(inst); err != nil {
			return v, callcheck.Message(t.in, t.inValue, inst, err)
		}
		return v, callcheck.Message(t.in, t.inValue, inst, fmt.Errorf("got %s, expected an object", v.Kind))
	}
	return stripOffsets(v), ""
}

// invalidArguments is the isError text for arguments err rejected (docs/serve.md#active-conversations-pinning): callcheck.Message of args, the arguments err was found in — each
// offending field by JSON Pointer, what was expected, a valid example.
// It is the message replay reports for the same call (docs/replay.md#replay-recorded-calls-against-a-new-contract), prefixed
// like replay's with the tool a facade alias routed the call to.
func invalidArguments(t *liveTool, called string, args any, err error) string {
	msg := callcheck.Message(t.in, t.inValue, args, err)
	if called != t.name {
		msg = fmt.Sprintf("routed to %s: %s", t.name, msg)
	}
	return msg
}

// problemPointers lists the distinct JSON Pointers of ps, the whole
// instance shown as root: where a value failed, never the value (for logs).
func problemPointers(ps []callcheck.Problem, root string) []string {
	var out []string
	for _, p := range ps {
		ptr := p.Pointer
		if ptr == "" {
			ptr = root
		}
		if !slices.Contains(out, ptr) {
			out = append(out, ptr)
		}
	}
	return out
}

// facadeArguments validates the arguments against the tool's input schema
// and, for a call through an alias or arguments that do not validate as
// sent, applies the tool's facade with facade.Apply (docs/serve.md#config, docs/serve.md#active-conversations-pinning):
// the translation is used only when it validates. It returns the arguments
// to hand the handler as JSON, or the error to report with the arguments it
// was found in (the original error and arguments when no translation
// helps; for an alias, the first failed validation of the routed call);
// untranslated arguments are handed over as the client sent them. Each
// translation step is counted per tool and step kind.
func (s *Server) facadeArguments(t *liveTool, alias *aliasRoute, name string, args *canon.Value, raw []byte) ([]byte, any, error) {
	sent := func() []byte {
		if len(raw) == 0 || string(raw) == "null" {
			return []byte("{}")
		}
		return raw // strictly valid JSON: parseArguments read it
	}
	inst := schema.Instance(args).(map[string]any)
	verr := t.in.Validate(inst)
	if alias == nil && (verr == nil || t.facade == nil) {
		if verr == nil {
			s.countUse(t.name)
		}
		return sent(), inst, verr
	}
	// facade.Apply reports the first failed validation; for an alias it
	// goes on translating the routed arguments in place: keep a copy of
	// them (a direct call's first validation is of inst, left untouched).
	var routed []byte
	validate := func(a map[string]any) error {
		err := t.in.Validate(a)
		if err != nil && alias != nil && routed == nil {
			routed, _ = json.Marshal(a)
		}
		return err
	}
	out, steps, err := facade.Apply(facade.File{t.name: *t.facade}, t.name, validate, facade.Call{Tool: name, Arguments: inst})
	if err != nil {
		// A validation error (of the call as routed), or an alias that
		// cannot apply (an inject conflicting with an argument) is
		// reported; a facade the engine cannot apply reports the original
		// error.
		var ve *jsonschema.ValidationError
		switch {
		case errors.As(err, &ve):
			if a, derr := schema.Decode(routed); alias != nil && derr == nil {
				return nil, a, err
			}
			return nil, inst, err
		case verr == nil:
			return nil, inst, err
		}
		return nil, inst, verr
	}
	rules := make([]string, 0, len(steps))
	for _, st := range steps {
		s.calls.facade(t.name, st.Kind)
		s.metrics.facades.WithLabelValues(t.name, st.Kind).Inc()
		rules = append(rules, st.Kind)
	}
	s.countUse(t.name, rules...)
	if len(steps) == 0 {
		return sent(), nil, nil
	}
	b, err := json.Marshal(out.Arguments)
	if err != nil {
		return nil, nil, err
	}
	return b, nil, nil
}
