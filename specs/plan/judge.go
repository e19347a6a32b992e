package plan

// CheckJudge asks a model (the judge agent) whether the task's end state
// meets a rubric the task writes, over the final screenshots of named
// devices and the text of named files; it answers pass or fail with its
// reasons and, when the rubric asks for one, a score from 0 to 1 that is
// the check's partial credit.
const CheckJudge = "judge"

// Judge is a judge check's rubric and what the judge is shown.
type Judge struct {
	// Rubric is what the judge decides, in the task's words.
	Rubric Expr `json:"rubric"`
	// Devices are the devices whose screens the judge sees (their final
	// screenshots), the check's own first; empty: none (files only).
	Devices []string `json:"devices,omitempty"`
	// Files are files on the check's device whose text the judge reads.
	Files []Expr `json:"files,omitempty"`
	// Score says the rubric asks for a score from 0 to 1; the check passes
	// when the judge says pass and the score reaches Threshold.
	Score     bool    `json:"score,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
}

// User is a simulated user: a persona a model plays to answer the agent's
// ask_human questions, and to approve or reject the actions of the policy
// rules it may decide, when no person does first.
type User struct {
	// Persona says who the user is; Knows what they know (the facts the
	// agent may ask for); Wants what they want done; Style how they answer.
	Persona string `json:"persona"`
	Knows   string `json:"knows,omitempty"`
	Wants   string `json:"wants,omitempty"`
	Style   string `json:"style,omitempty"`
	// Approves names the task's policy rules (confirm) whose approvals the
	// simulated user may decide; any other confirm waits for a person.
	Approves []string `json:"approves,omitempty"`
}
