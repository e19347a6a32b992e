package tracing

import (
	"context"
	"strings"
	"testing"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flag    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "off", want: ""},
		{name: "flag is a base URL", flag: "http://127.0.0.1:4318", want: "http://127.0.0.1:4318/v1/traces"},
		{name: "flag with a path", flag: "https://otel.example/ingest/", want: "https://otel.example/ingest/v1/traces"},
		{name: "flag wins", flag: "http://a:4318", env: map[string]string{EnvTracesEndpoint: "http://b:4318/t"}, want: "http://a:4318/v1/traces"},
		{name: "traces variable as it is", env: map[string]string{EnvTracesEndpoint: "http://b:4318/t", EnvEndpoint: "http://c:4318"}, want: "http://b:4318/t"},
		{name: "base variable", env: map[string]string{EnvEndpoint: "http://c:4318"}, want: "http://c:4318/v1/traces"},
		{name: "not a URL", flag: "localhost:4318", wantErr: `--otel-endpoint "localhost:4318" is not an http:// or https:// URL`},
		{name: "grpc scheme", env: map[string]string{EnvEndpoint: "grpc://c:4317"}, wantErr: `$OTEL_EXPORTER_OTLP_ENDPOINT "grpc://c:4317"`},
	} {
		got, err := Endpoint(Options{Endpoint: tc.flag, Getenv: func(k string) string { return tc.env[k] }})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: Endpoint = %q, %v; want an error with %q", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: Endpoint = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestOffSetsNothing: without an endpoint no interceptor is set and
// Shutdown has nothing to do.
func TestOffSetsNothing(t *testing.T) {
	tr, err := Start(context.Background(), Options{Getenv: func(string) string { return "" }})
	if err != nil || tr.On() || tr.ClientInterceptors() != nil || tr.Shutdown(0) != nil {
		t.Fatalf("Start without an endpoint = %+v, %v; want tracing off", tr, err)
	}
}
