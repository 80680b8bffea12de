package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/upstream"
)

// Call outcomes, for metrics and /status (admin.CallCounts).
const (
	OutcomeOK      = admin.OutcomeOK
	OutcomeError   = admin.OutcomeError
	OutcomeInvalid = admin.OutcomeInvalid
	OutcomeUnknown = admin.OutcomeUnknown
)

// toolMeters are one tool's counters (the one source /status and /metrics
// read: admin.Counters) and latency histogram, resolved once (when a
// generation is built) so the call path only does atomic adds: no map or
// label lookups, no locks.
type toolMeters struct {
	counts  *admin.ToolCounts
	latency prometheus.Observer
}

func (m *toolMeters) succeeded() { m.counts.OK.Add(1) }
func (m *toolMeters) failed()    { m.counts.Error.Add(1) }
func (m *toolMeters) invalid()   { m.counts.Invalid.Add(1) }

// toolMeters returns the meters of a tool name (created on first use).
func (s *Server) toolMeters(name string) *toolMeters {
	if v, ok := s.meters.Load(name); ok {
		return v.(*toolMeters)
	}
	m := &toolMeters{counts: s.metrics.calls.Tool(name), latency: s.metrics.callLatency.WithLabelValues(name)}
	v, _ := s.meters.LoadOrStore(name, m)
	return v.(*toolMeters)
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

// errTooManyCalls refuses a call that arrives while Options.MaxCalls calls
// are in flight; callTool answers it with busyResult.
var errTooManyCalls = errors.New("too many calls in flight")

// busyResult is the isError result of a call refused at Options.MaxCalls
// (as an exec call beyond --exec-queue is refused: the model may retry).
func (s *Server) busyResult(tool string) *mcp.CallToolResult {
	return errorResult(fmt.Sprintf("Tool %q was not run: the server is answering its maximum of %d calls at once (--max-calls); try again later.", tool, s.opts.MaxCalls))
}

// callTool validates and runs one call against the one generation it loads
// (docs/serve.md#generations-and-the-reload-pipeline, docs/serve.md#active-conversations-pinning): arguments are checked against the input schema (after
// the tool's facade when they do not validate as sent) by
// callcheck.CheckCall, as replay checks them, before any handler runs; the handler's output becomes content, and structuredContent when the
// tool has an outputSchema (validated against it). The fast path
// (fastcall.go) takes the same steps for the calls it forwards.
func (s *Server) callTool(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest) (mcp.Result, error) {
	if err := s.enterCall(); err != nil {
		if errors.Is(err, errTooManyCalls) {
			return s.refuseAtMax(ctx, ss, req)
		}
		return nil, err
	}
	defer s.leaveCall()
	name := req.Params.Name
	g, _ := s.routeCall(ss, name, req.Params.Arguments)
	c := s.startCall(g, name, req.Params.Arguments)
	defer c.end()
	t, err := c.resolve()
	if err != nil {
		return nil, err
	}
	argsJSON, m, res := c.checkArgs(t)
	if res != nil {
		return res, nil
	}
	start := time.Now()
	out, err := t.handler.Call(withDownstream(ctx, ss, req), argsJSON)
	m.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		return c.failed(ctx, t, m, err), nil
	}
	if out.Result != nil {
		// An upstream's result, passed through unchanged.
		m.outcome(out.Result.IsError)
		return out.Result, nil
	}
	return c.output(t, m, out.Body), nil
}

// refuseAtMax answers a call that arrived while Options.MaxCalls calls
// were in flight: busyResult, counted and marked on the call's span; or,
// for a tool the call's generation does not have, the unknown-tool error
// the call gets at any other time (a retry would not help). Either is
// recorded (--record), the refused call without an expected outcome: its
// arguments were not validated.
func (s *Server) refuseAtMax(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest) (mcp.Result, error) {
	name := req.Params.Name
	g, _ := s.routeCall(ss, name, req.Params.Arguments)
	c := &toolCall{s: s, g: g, name: name, rec: startRecord(s.rec, name, req.Params.Arguments, g, s.live.Load())}
	defer c.end()
	if _, err := c.resolve(); err != nil {
		return nil, err
	}
	s.callsRefused.Add(1)
	noteRefused(ctx)
	return s.busyResult(name), nil
}

// enterCall counts a call in flight, or refuses it while the server
// drains (errShuttingDown) or answers Options.MaxCalls calls already
// (errTooManyCalls); leaveCall undoes it (after a nil error only).
//
// A refused call is never counted, not even for a moment: /status and
// mcpctl_serve_calls_in_flight never read more than Options.MaxCalls, and a
// call is refused only while Options.MaxCalls others are in flight.
func (s *Server) enterCall() error {
	if s.draining.Load() {
		return errShuttingDown
	}
	if !s.inflight.addBelow(int64(s.opts.MaxCalls)) {
		return errTooManyCalls
	}
	if s.draining.Load() { // again once counted, so that drain waits for it
		s.inflight.done()
		return errShuttingDown
	}
	return nil
}

func (s *Server) leaveCall() {
	s.inflight.done()
}

// routeCall returns the generation a call runs against, with a call
// reference taken: the session's pin or the live one, or blue when the
// call is routed there by its shape (routed).
func (s *Server) routeCall(ss *mcp.ServerSession, name string, args json.RawMessage) (g *Generation, routed bool) {
	g = s.acquireFor(ss)
	if bg := s.shapeRoute(ss, g, name, args); bg != nil {
		g.release() // blue takes the call by its shape
		return bg, true
	}
	return g, false
}

// toolCall is one tools/call past routeCall: its generation, as sent, and
// its record (nil unless --record).
type toolCall struct {
	s    *Server
	g    *Generation
	name string
	args json.RawMessage
	rec  *recording.Call
	// parsed, when set, is args as already parsed (see arguments).
	parsed *canon.Value
}

// withParsed is c with its arguments as already parsed (nil: none).
func (c *toolCall) withParsed(v *canon.Value) *toolCall {
	c.parsed = v
	return c
}

// startCall counts the call for its blue/green side and starts its
// record, which goes to the writer once the outcome is known: before the
// handler runs, so a call abandoned at shutdown is recorded too. end
// releases g.
func (s *Server) startCall(g *Generation, name string, args json.RawMessage) *toolCall {
	s.countSide(g)
	return &toolCall{s: s, g: g, name: name, args: args, rec: startRecord(s.rec, name, args, g, s.live.Load())}
}

func (c *toolCall) end() {
	c.s.rec.Put(c.rec)
	c.g.release()
}

// lookup finds a tool of g by its name or an alias of it (nil, nil: no
// such tool).
func (g *Generation) lookup(name string) (*liveTool, *aliasRoute) {
	if t := g.tools[name]; t != nil {
		return t, nil
	}
	if alias := g.aliases[name]; alias != nil {
		return alias.target, alias
	}
	return nil, nil
}

// resolve returns the tool the call names, or the JSON-RPC error of an
// unknown tool (with the closest names).
func (c *toolCall) resolve() (*liveTool, error) {
	t, _ := c.g.lookup(c.name)
	if t == nil {
		c.s.metrics.calls.AddUnknown()
		recordOutcome(c.rec, fixtures.UnknownTool)
		v := callcheck.CheckCall(nil, facade.Call{Tool: c.name}, c.g.names)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: v.Message}
	}
	recordRoute(c.rec, t.facade)
	return t, nil
}

// meters returns t's meters.
func (s *Server) metersOf(t *liveTool) *toolMeters {
	if t.meters != nil {
		return t.meters
	}
	return s.toolMeters(t.name)
}

// outcome counts a handler's result by its isError.
func (m *toolMeters) outcome(isError bool) {
	if isError {
		m.failed()
	} else {
		m.succeeded()
	}
}

// checkArgs validates the call's arguments for t and returns them as the
// handler gets them, or the isError result of invalid ones (counted).
func (c *toolCall) checkArgs(t *liveTool) ([]byte, *toolMeters, *mcp.CallToolResult) {
	m := c.s.metersOf(t)
	args, msg := c.arguments(t)
	if msg != "" {
		m.invalid()
		recordOutcome(c.rec, fixtures.Rejected)
		return nil, m, errorResult(msg)
	}
	v := callcheck.CheckCall(t.check, facade.Call{Tool: c.name, Arguments: schema.Instance(&args).(map[string]any)}, nil)
	if v.Outcome == callcheck.Rejected {
		m.invalid()
		recordOutcome(c.rec, fixtures.Rejected)
		return nil, m, errorResult(v.Message)
	}
	argsJSON, err := c.s.handlerArguments(t, &v, c.args)
	if err != nil {
		m.invalid()
		recordOutcome(c.rec, fixtures.Rejected)
		return nil, m, errorResult(err.Error())
	}
	recordPassed(c.rec, v.Outcome == callcheck.Accepted, argsJSON)
	c.s.rec.Put(c.rec)
	return argsJSON, m, nil
}

// failed is the isError result of a handler that failed with err.
func (c *toolCall) failed(ctx context.Context, t *liveTool, m *toolMeters, err error) *mcp.CallToolResult {
	m.failed()
	c.s.log.Warn("tool call failed", "tool", t.name, "generation", c.g.Version, "kind", failureKind(ctx, err))
	return errorResult(fmt.Sprintf("Tool %q failed: %v", t.name, err))
}

// output is the result of a handler's output body: content, and
// structuredContent when the tool has an outputSchema (validated).
func (c *toolCall) output(t *liveTool, m *toolMeters, body []byte) *mcp.CallToolResult {
	g := c.g
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	if t.structured != nil {
		res.StructuredContent = json.RawMessage(t.structured)
	} else if t.out != nil {
		v, perr := canon.Parse(body)
		if perr != nil {
			m.failed()
			c.s.log.Error("handler output is not JSON but the tool declares an outputSchema", "tool", t.name, "generation", g.Version)
			return errorResult(fmt.Sprintf("Tool %q produced output that is not JSON, but it declares an outputSchema.", t.name))
		}
		inst := schema.Instance(&v)
		if oerr := t.out.Validate(inst); oerr != nil {
			m.failed()
			ps := callcheck.Problems(t.outValue, inst, oerr)
			c.s.log.Error("handler output violates the tool's outputSchema", "tool", t.name, "generation", g.Version, "at", problemPointers(ps, "(output)"))
			return errorResult(fmt.Sprintf("Tool %q produced output that violates its own outputSchema:%s", t.name, callcheck.Lines(ps, "(output)")))
		}
		res.StructuredContent = json.RawMessage(canon.AppendOrdered(nil, &v))
	}
	m.succeeded()
	return res
}

func failureKind(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return "cancelled"
	case errors.Is(err, handler.ErrOutputTooLarge):
		return "output-too-large"
	case errors.As(err, new(*handler.TimeoutError)), errors.Is(err, upstream.ErrTimeout):
		return "timeout"
	case errors.Is(err, upstream.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, handler.ErrExecBusy), errors.Is(err, handler.ErrExecWait):
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
// arguments is the call's arguments parsed for t (parseArguments), or as
// the fast path's strict reader parsed them already: an object, or null
// for none.
func (c *toolCall) arguments(t *liveTool) (canon.Value, string) {
	switch {
	case c.parsed == nil:
		return t.parseArguments(c.args)
	case c.parsed.Kind == canon.Object:
		return canon.StripOffsets(*c.parsed), ""
	}
	return canon.Value{Kind: canon.Object}, "" // null (parseCall takes no other)
}

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
	return canon.StripOffsets(v), ""
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

// handlerArguments returns the arguments of an accepted or translated
// call v to hand the handler as JSON: as the client sent them (raw) when
// no facade step changed them. Each translation step is counted per tool
// and step kind (/status, /metrics), and the call once per facade rule it
// used (facade.RuleKey: the usage the gate's quiet period reads).
func (s *Server) handlerArguments(t *liveTool, v *callcheck.Verdict, raw []byte) ([]byte, error) {
	rules := make([]string, 0, len(v.Steps))
	for _, st := range v.Steps {
		s.metrics.calls.AddFacade(t.name, st.Kind)
		for _, r := range st.Rules {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	s.countUse(t.name, rules...)
	if len(v.Steps) > 0 {
		return json.Marshal(v.Call.Arguments)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), nil
	}
	return raw, nil // strictly valid JSON: parseArguments read it
}
