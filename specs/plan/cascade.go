package plan

// LargeProfile is the key, in a plan's Profiles, of the large profile of
// agent's cascade (profiles { reflection = { small = …, large = … } }):
// the small one is under the agent's own name and answers until a monitor
// of the agent loop fires (see workflows' cascade.go), then the large one
// answers.
func LargeProfile(agent string) string { return agent + ".large" }
