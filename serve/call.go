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

// callTool validates and runs one call against the one generation it loads
// (docs/serve.md#generations-and-the-reload-pipeline, docs/serve.md#active-conversations-pinning): arguments are checked against the input schema (after
// the tool's facade when they do not validate as sent) by
// callcheck.CheckCall, as replay checks them, before any handler runs; the handler's output becomes content, and structuredContent when the
// tool has an outputSchema (validated against it).
func (s *Server) callTool(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest) (mcp.Result, error) {
	s.inflight.add()
	defer s.inflight.done()
	if s.draining.Load() {
		return nil, errShuttingDown
	}
	g := s.acquireFor(ss)
	defer func() { g.release() }()

	name := req.Params.Name
	if bg := s.shapeRoute(ss, g, name, req.Params.Arguments); bg != nil {
		g.release() // blue takes the call by its shape
		g = bg
	}
	s.countSide(g)
	// The record (nil unless --record) goes to the writer once the
	// outcome is known: before the handler runs, so a call abandoned at
	// shutdown is recorded too.
	rec := startRecord(s.rec, name, req.Params.Arguments, g, s.live.Load())
	defer s.rec.Put(rec)
	t, alias := g.tools[name], (*aliasRoute)(nil)
	if t == nil {
		if alias = g.aliases[name]; alias != nil {
			t = alias.target
		}
	}
	if t == nil {
		s.metrics.calls.AddUnknown()
		recordOutcome(rec, fixtures.UnknownTool)
		v := callcheck.CheckCall(nil, facade.Call{Tool: name}, g.names)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: v.Message}
	}
	recordRoute(rec, t.facade)
	m := t.meters
	if m == nil {
		m = s.toolMeters(t.name)
	}

	args, msg := t.parseArguments(req.Params.Arguments)
	if msg != "" {
		m.invalid()
		recordOutcome(rec, fixtures.Rejected)
		return errorResult(msg), nil
	}
	v := callcheck.CheckCall(t.check, facade.Call{Tool: name, Arguments: schema.Instance(&args).(map[string]any)}, nil)
	if v.Outcome == callcheck.Rejected {
		m.invalid()
		recordOutcome(rec, fixtures.Rejected)
		return errorResult(v.Message), nil
	}
	argsJSON, err := s.handlerArguments(t, &v, req.Params.Arguments)
	if err != nil {
		m.invalid()
		recordOutcome(rec, fixtures.Rejected)
		return errorResult(err.Error()), nil
	}
	recordPassed(rec, v.Outcome == callcheck.Accepted, argsJSON)
	s.rec.Put(rec)

	start := time.Now()
	out, err := t.handler.Call(withDownstream(ctx, ss, req), argsJSON)
	m.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		m.failed()
		s.log.Warn("tool call failed", "tool", t.name, "generation", g.Version, "kind", failureKind(ctx, err))
		return errorResult(fmt.Sprintf("Tool %q failed: %v", t.name, err)), nil
	}
	if out.Result != nil {
		// An upstream's result, passed through unchanged.
		if out.Result.IsError {
			m.failed()
		} else {
			m.succeeded()
		}
		return out.Result, nil
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
		res.StructuredContent = json.RawMessage(canon.AppendOrdered(nil, &v))
	}
	m.succeeded()
	return res, nil
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
