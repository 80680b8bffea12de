package cmd

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracerProvider returns the tracer provider of serve: an OTLP/HTTP
// exporter when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (the exporter reads the other
// OTEL_EXPORTER_OTLP_* variables: headers, timeout, compression), nil
// otherwise, so tracing is off by default. The resource is service.name
// "mcpctl" (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it) and
// service.version. shutdown flushes the spans still buffered.
func tracerProvider(ctx context.Context) (tp *sdktrace.TracerProvider, shutdown func(context.Context) error, err error) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, usageErrorf("OpenTelemetry exporter: %v", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "mcpctl"), attribute.String("service.version", Version)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, nil, usageErrorf("OpenTelemetry resource: %v", err)
	}
	tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}
