package serve

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A tools/call span carried the tool name as the client sent it, whole, in
// its name, its gen_ai.tool.name attribute and (for an unknown tool) its
// status description: a client calling a 1 MiB unknown name made 3 MiB
// spans, queued by the batch exporter (2,048 spans: gigabytes when the
// collector is slow) and sent to the collector. Reproduction, with
// OTEL_EXPORTER_OTLP_ENDPOINT set:
//
//	{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"xxxx…(1 MiB)","arguments":{}}}
//
// The name in spans is now cut to 128 bytes (MCP 2025-11-25, Tools: a tool
// name SHOULD be 1 to 128 characters) and the status description to 1 KiB;
// a traceparent that is malformed or huge is ignored.
func TestAdversarialTraceHugeToolName(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	s, _ := startServer(t, baseConfig, func(o *testOptions) { o.TracerProvider = tp })
	c := dialRaw(t, s)
	c.initialize(true)
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	for _, tp := range []any{strings.Repeat("0", 1<<20), "00-" + strings.Repeat("f", 1<<20), 42, map[string]any{"a": 1}} {
		c.call("tools/call", map[string]any{"name": huge, "arguments": map[string]any{}, "_meta": map[string]any{"traceparent": tp, "tracestate": strings.Repeat("a=b,", 1<<18)}})
	}
	spans := exp.GetSpans()
	n := 0
	for _, sp := range spans {
		if !strings.HasPrefix(sp.Name, "tools/call ") {
			continue
		}
		n++
		if len(sp.Name) > 200 || !utf8.ValidString(sp.Name) {
			t.Errorf("span name of %d bytes (valid UTF-8: %v), want at most 200", len(sp.Name), utf8.ValidString(sp.Name))
		}
		for _, kv := range sp.Attributes {
			if s := kv.Value.String(); len(s) > 200 || !utf8.ValidString(s) {
				t.Errorf("attribute %s of %d bytes, want at most 200", kv.Key, len(s))
			}
		}
		if len(sp.Status.Description) > 1100 || !utf8.ValidString(sp.Status.Description) {
			t.Errorf("status description of %d bytes, want at most 1 KiB", len(sp.Status.Description))
		}
		if sp.Parent.IsValid() {
			t.Errorf("a malformed traceparent made the span a child of %s", sp.Parent.TraceID())
		}
	}
	if n != 4 {
		t.Errorf("%d tools/call spans, want 4", n)
	}
}
