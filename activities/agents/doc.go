// Package agents holds the four model-backed roles of PC-Agent — Manager,
// Decision, Reflection and Progress — on any OpenAI-compatible endpoint
// through go-openai. It implements activities.Model.
//
// Each role lives in its own file (decision.go, reflection.go, progress.go,
// manager.go) with its prompt, its tool and the parser of its answer; all
// of them go through one request → call → parse → re-ask loop (ask in
// client.go), which feeds an invalid answer's problem back to the model at
// most Config.MaxReasks times. The client never retries a failed call on
// its own: errors are classified (agent.APIError) and Temporal owns retries.
//
// Every request carries the headers X-Pcflow-Role, X-Pcflow-Subtask and
// X-Pcflow-Step, so a test endpoint (the scripted model) knows what it is
// asked without reading the prompt's wording; other endpoints ignore them.
package agents
