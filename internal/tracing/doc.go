// Package tracing sends OpenTelemetry traces of pcflow's runs over
// OTLP/HTTP. It owns the process's tracer provider and the Temporal SDK's
// tracing interceptor (go.temporal.io/sdk/contrib/opentelemetry), which
// carries a run's trace from the client that starts it through its
// workflow, child workflows and activities in Temporal's headers: set on a
// client, it applies to every worker made from that client too.
//
// Tracing is off unless an endpoint is given: Options.Endpoint (the
// --otel-endpoint flag), or the environment's
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT. Off,
// nothing is set on the client and no span is made anywhere: the
// activities' own spans (activities/trace.go) come from the tracer of the
// activity's span, a no-op one when there is none.
//
// The interceptor changes no workflow command: histories recorded with
// tracing on replay without it and the other way round (TestReplay in
// workflows/replay_test.go replays every fixture both ways). No span
// carries a prompt, a screenshot or a secret (docs/tracing.md).
package tracing
