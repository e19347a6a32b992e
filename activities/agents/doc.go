// Package agents holds the four model-backed roles of PC-Agent — Manager,
// Decision, Reflection and Progress — on any OpenAI-compatible endpoint
// through go-openai. It implements activities.Model.
//
// Each role lives in its own file (decision.go, reflection.go, progress.go,
// manager.go) with its prompt, its tool and the parser of its answer; all
// of them, in every protocol, go through one send → parse → re-ask loop
// (reask in client.go) with a transport per protocol (chat for chat
// completions and text formats, computerTransport for the computer-use
// protocols), which feeds an invalid answer's problem back to the model at
// most Config.MaxReasks times. The client never retries a failed call on
// its own: errors are classified (agent.APIError) and Temporal owns retries.
//
// A system prompt that names coordinates renders the profile's coordinate
// space as a field ({{.Coordinates}}, profile.Profile.CoordinateHint), and
// the tools name it where screen's table marks a coordinate. Profile names
// become profiles in one place, Profiles.Resolve (resolve.go), for the
// command line (cli/model.go) and a task's profiles block (ForTask) alike;
// a process reads $PCFLOW_PROFILES once.
//
// Every request carries the headers X-Pcflow-Role, X-Pcflow-Subtask and
// X-Pcflow-Step (and X-Pcflow-Profile for Decision), so a test endpoint
// knows what it is asked without reading the prompt's wording; other
// endpoints ignore them. When Config.Scripted says the endpoint is pcflow's
// scripted model, requests also carry X-Pcflow-Turn: what the prompt shows,
// as data (agent.TurnFacts, built in turn.go beside each prompt's data), so
// the prompts' wording can change without a script breaking; real
// endpoints never get it. PromptVersion is a digest of the prompts and
// tools.
package agents
