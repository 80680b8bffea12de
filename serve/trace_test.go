package serve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestIssue10OTelSpans: serve had no traces. With a TracerProvider it makes
// one server span per tools/call, named "tools/call TOOL" with the MCP
// semantic-convention attributes, a child of the trace in
// params._meta.traceparent, and one span per reload whose status is an
// error when the candidate is refused.
func TestIssue10OTelSpans(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	s, path := startServer(t, baseConfig, func(o *testOptions) { o.TracerProvider = tp })
	c := dialRaw(t, s)
	c.initialize(true)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	c.call("tools/call", map[string]any{"name": "search_documents", "arguments": map[string]any{"query": "x"},
		"_meta": map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"}})
	c.call("tools/call", map[string]any{"name": "fetch_document", "arguments": map[string]any{}}) // invalid: isError
	c.call("tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})           // unknown: a JSON-RPC error
	writeFile(t, filepath.Dir(path), filepath.Base(path), strings.Replace(baseConfig, "  - name: fetch_document", "  - name: fetch_document_v2", 1))
	if res := s.Reload(context.Background(), "test"); res.Result != ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}

	type span struct {
		Name, Kind, Status, Parent string
		Attrs                      map[string]string
	}
	var got []span
	for _, sp := range exp.GetSpans() {
		attrs := map[string]string{}
		for _, kv := range sp.Attributes {
			if kv.Key != attrSession && kv.Key != attrGenFingerprint && kv.Key != attrReloadCandidate {
				attrs[string(kv.Key)] = kv.Value.String()
			}
		}
		parent := ""
		if sp.Parent.IsValid() {
			parent = sp.Parent.TraceID().String() + "/" + sp.Parent.SpanID().String()
		}
		got = append(got, span{sp.Name, sp.SpanKind.String(), sp.Status.Code.String(), parent, attrs})
	}
	call := func(tool string, extra ...attribute.KeyValue) map[string]string {
		m := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool",
			"mcp.protocol.version": "2025-11-25", "network.transport": "pipe"}
		for _, kv := range extra {
			m[string(kv.Key)] = kv.Value.String()
		}
		return m
	}
	reload := func(trigger, result string, changed bool) map[string]string {
		return map[string]string{"mcpctl.reload.trigger": trigger, "mcpctl.reload.result": result, "mcpctl.generation.version": "1",
			"mcpctl.reload.changed": map[bool]string{true: "true", false: "false"}[changed]}
	}
	server, internal := trace.SpanKindServer.String(), trace.SpanKindInternal.String()
	want := []span{
		{"reload", internal, codes.Unset.String(), "", reload("startup", ResultPublished, true)},
		{"tools/call search_documents", server, codes.Unset.String(), traceID + "/" + parentID, call("search_documents")},
		{"tools/call fetch_document", server, codes.Error.String(), "", call("fetch_document", attrErrorType.String("tool_error"))},
		{"tools/call nope", server, codes.Error.String(), "", call("nope", attrErrorType.String("-32602"), attrRPCStatus.String("-32602"))},
		{"reload", internal, codes.Error.String(), "", reload("test", ResultRefused, false)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}
