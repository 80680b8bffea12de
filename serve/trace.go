package serve

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcpctl/mcpctl/internal/textcut"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// tracerName is the instrumentation scope of serve's spans.
const tracerName = "github.com/mcpctl/mcpctl/serve"

// Span attribute keys. Those of the OpenTelemetry semantic conventions for
// MCP (semconv 1.37+, "Semantic conventions for Model Context Protocol") and
// for GenAI tool execution are used as named there; the mcpctl.* keys are
// mcpctl's own.
const (
	attrMethod          = attribute.Key("mcp.method.name")
	attrSession         = attribute.Key("mcp.session.id")
	attrProtocol        = attribute.Key("mcp.protocol.version")
	attrToolName        = attribute.Key("gen_ai.tool.name")
	attrOperation       = attribute.Key("gen_ai.operation.name")
	attrTransport       = attribute.Key("network.transport")
	attrErrorType       = attribute.Key("error.type")
	attrRPCStatus       = attribute.Key("rpc.response.status_code")
	attrReloadTrigger   = attribute.Key("mcpctl.reload.trigger")
	attrReloadResult    = attribute.Key("mcpctl.reload.result")
	attrGeneration      = attribute.Key("mcpctl.generation.version")
	attrGenFingerprint  = attribute.Key("mcpctl.generation.fingerprint")
	attrReloadChanged   = attribute.Key("mcpctl.reload.changed")
	attrReloadCandidate = attribute.Key("mcpctl.reload.candidate_fingerprint")
)

// Bounds of the client's text in a span: the tool name (MCP 2025-11-25,
// Tools, "Tool names": 1 to 128 characters) and the status description
// (an error message may quote the call).
const (
	maxSpanToolName = 128
	maxSpanStatus   = 1024
)

// tracing makes serve's spans: one per tools/call (a child of the caller's
// trace when params._meta carries W3C traceparent/tracestate) and one per
// reload. Without a TracerProvider the spans are no-ops.
type tracing struct {
	tracer trace.Tracer
	prop   propagation.TraceContext
	on     bool // a TracerProvider was given
}

func newTracing(tp trace.TracerProvider) tracing {
	on := tp != nil
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tracing{tracer: tp.Tracer(tracerName), on: on}
}

// metaCarrier reads W3C trace context from a request's _meta (MCP
// 2025-11-25 basic, "_meta": keys without a prefix such as "traceparent"
// are left to the parties; the OpenTelemetry MCP conventions put the trace
// context there).
type metaCarrier mcp.Meta

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}
func (metaCarrier) Set(string, string) {}
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// call runs a tools/call in a span named "tools/call TOOL" of kind server.
func (t tracing) call(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest, do func(context.Context) (mcp.Result, error)) (mcp.Result, error) {
	if req.Params != nil && req.Params.Meta != nil {
		ctx = t.prop.Extract(ctx, metaCarrier(req.Params.Meta))
	}
	name := ""
	if req.Params != nil {
		name = textcut.Cut(req.Params.Name, maxSpanToolName)
	}
	attrs := []attribute.KeyValue{attrMethod.String("tools/call"), attrToolName.String(name), attrOperation.String("execute_tool")}
	attrs = append(attrs, sessionAttrs(ss, req.GetExtra())...)
	ctx, span := t.tracer.Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	defer span.End()
	note := &callNote{}
	if t.on {
		ctx = context.WithValue(ctx, callNoteKey{}, note)
	}
	res, err := do(ctx)
	if err != nil {
		span.SetStatus(codes.Error, textcut.Cut(err.Error(), maxSpanStatus))
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			code := strconv.FormatInt(je.Code, 10)
			span.SetAttributes(attrErrorType.String(code), attrRPCStatus.String(code))
		} else {
			span.SetAttributes(attrErrorType.String("_OTHER"))
		}
		return res, err
	}
	switch r, ok := res.(*mcp.CallToolResult); {
	case note.refused:
		span.SetStatus(codes.Error, "refused: the server answered its maximum of calls at once (--max-calls)")
		span.SetAttributes(attrErrorType.String("mcpctl.max_calls"))
	case ok && r.IsError:
		span.SetStatus(codes.Error, "the tool returned isError")
		span.SetAttributes(attrErrorType.String("tool_error"))
	}
	return res, nil
}

// callNote is what a tools/call tells its span beyond its result
// (noteRefused); tracing.call puts one in the call's context.
type callNote struct {
	refused bool // refused at Options.MaxCalls, the tool not run
}

type callNoteKey struct{}

// noteRefused marks the call of ctx as refused at Options.MaxCalls.
func noteRefused(ctx context.Context) {
	if n, _ := ctx.Value(callNoteKey{}).(*callNote); n != nil {
		n.refused = true
	}
}

// sessionAttrs describes the session a request came on.
func sessionAttrs(ss *mcp.ServerSession, extra *mcp.RequestExtra) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if ss == nil {
		return attrs
	}
	if id := ss.ID(); id != "" {
		attrs = append(attrs, attrSession.String(id))
	}
	if p := ss.InitializeParams(); p != nil && p.ProtocolVersion != "" {
		attrs = append(attrs, attrProtocol.String(p.ProtocolVersion))
	}
	transport := "pipe" // stdio
	if extra != nil && extra.Header != nil {
		transport = "tcp"
	}
	return append(attrs, attrTransport.String(transport))
}

// reload runs a reload in a span named "reload"; a refused candidate sets
// the span's status to error.
func (t tracing) reload(ctx context.Context, trigger string, do func(context.Context) ReloadResult) ReloadResult {
	ctx, span := t.tracer.Start(ctx, "reload", trace.WithAttributes(attrReloadTrigger.String(trigger)))
	defer span.End()
	res := do(ctx)
	span.SetAttributes(attrReloadResult.String(res.Result), attrGeneration.Int64(int64(res.Version)),
		attrGenFingerprint.String(res.Fingerprint), attrReloadChanged.Bool(res.Changed))
	if res.Candidate != "" {
		span.SetAttributes(attrReloadCandidate.String(res.Candidate))
	}
	if res.Result == ResultRefused {
		span.SetStatus(codes.Error, res.Reason)
	}
	return res
}
