package agents_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// TestProfileEndpointGetsOnlyItsKey: a profile with its own base_url (a
// local vLLM grounder, a cascade's other model) is asked there, for its
// model, with the key its api_key_env names — and never with the main
// endpoint's OPENAI_API_KEY, which a profiles file pointing elsewhere
// would otherwise collect.
func TestProfileEndpointGetsOnlyItsKey(t *testing.T) {
	var mu sync.Mutex
	var auth, models []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		auth, models = append(auth, r.Header.Get("Authorization")), append(models, body.Model)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"click","arguments":"{\"element\":1}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, keyEnv, wantAuth string
	}{
		{"no key", "", ""},
		{"its own key", "LOCAL_KEY", "Bearer lk-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth, models = nil, nil
			set, _ := profile.NewSet()
			p, _ := set.Get("openai-tools")
			p.Name, p.Model, p.BaseURL, p.APIKeyEnv = "local", "local-model", srv.URL+"/v1", tc.keyEnv
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			cfg := agents.Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "sk-main-secret", DecisionModel: "gpt-main", MaxTokens: 64,
				ImageMaxSide: 400, ImageFormat: "png", MaxReasks: 1, Profile: p,
				Getenv: func(k string) string { return map[string]string{"LOCAL_KEY": "lk-1"}[k] }}
			var u screen.Usage
			d, err := agents.New(cfg).Decide(context.Background(), input(), &u)
			if err != nil {
				t.Fatal(err)
			}
			if d.Action.Element != 1 || len(auth) != 1 || strings.TrimSpace(auth[0]) != tc.wantAuth || models[0] != "local-model" {
				t.Errorf("asked with Authorization %q for model %q, want %q for local-model", auth, models, tc.wantAuth)
			}
			if u.ByModel["local-model"].Calls != 1 {
				t.Errorf("usage by model = %+v, want the call counted for local-model", u.ByModel)
			}
		})
	}
}

// TestProfileEndpointFields: a profile's endpoint is an http(s) URL
// without credentials, and api_key_env names a variable of its own
// endpoint.
func TestProfileEndpointFields(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{`[{"name": "a", "base": "uitars-1.5", "base_url": "http://user:pw@gpu:8000/v1"}]`, "without credentials"},
		{`[{"name": "a", "base": "uitars-1.5", "base_url": "file:///etc/passwd"}]`, "is not an http(s) URL"},
		{`[{"name": "a", "base": "uitars-1.5", "api_key_env": "OPENAI_API_KEY"}]`, "give base_url too"},
		{`[{"name": "a", "base": "uitars-1.5", "base_url": "http://gpu:8000/v1", "api_key_env": "x; rm"}]`, "not an environment variable's name"},
	} {
		if _, err := profile.Parse([]byte(tc.json), "p.json"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error saying %q", tc.json, err, tc.want)
		}
	}
}
