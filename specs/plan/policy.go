package plan

// Policy decisions (issue 13).
const (
	PolicyAllow   = "allow"
	PolicyDeny    = "deny"    // the agent is told and must choose another action
	PolicyConfirm = "confirm" // the step waits for a person's approve / reject
)

// Policy is the rules over a task's actions: the first rule that matches an
// action decides; no rule matching means Default ("allow" when empty). A
// deny-by-default policy is Default "deny" plus allow rules.
type Policy struct {
	Default string       `json:"default,omitempty"`
	Rules   []PolicyRule `json:"rules,omitempty"`
	// Source says where the policy came from (task file, --policy file,
	// $PCFLOW_POLICY), for messages.
	Source string `json:"source,omitempty"`
}

// PolicyRule matches an action; every non-empty matcher must match. Text
// matchers are regular expressions (RE2, case-insensitive), compiled and
// checked when the task is parsed.
type PolicyRule struct {
	Name    string   `json:"name"`
	Kinds   []string `json:"kinds,omitempty"`  // action kinds: click, type, hotkey, ...
	Target  string   `json:"target,omitempty"` // the target element's name
	Role    string   `json:"role,omitempty"`   // the target element's role
	Window  string   `json:"window,omitempty"` // the foreground window's title
	App     string   `json:"app,omitempty"`    // the foreground application
	Text    string   `json:"text,omitempty"`   // text typed, keys pressed, app opened
	Devices []string `json:"devices,omitempty"`
	// Sensitive matches actions that use a sensitive variable (true) or
	// that do not (false); nil matches both.
	Sensitive *bool  `json:"sensitive,omitempty"`
	Decision  string `json:"decision"`
	// Timeout: how long a confirm waits before it counts as rejected
	// (zero: the subtask's own deadline).
	Timeout Duration `json:"timeout,omitempty"`
	Message string   `json:"message,omitempty"` // told to the agent / shown to the person
}

// ActionFacts is what a policy sees of one action: computed on the device
// by Decide from the observation the action was chosen on (the element the
// action targets, by id or by the point it acts at, and the foreground
// window), so the workflow can decide without looking at the screen.
type ActionFacts struct {
	Kind      string `json:"kind"`
	Device    string `json:"device,omitempty"`
	Target    string `json:"target,omitempty"`
	Role      string `json:"role,omitempty"`
	Window    string `json:"window,omitempty"`
	App       string `json:"app,omitempty"`
	Text      string `json:"text,omitempty"` // redacted: a secret's value never appears here
	Sensitive bool   `json:"sensitive,omitempty"`
	ElementID int    `json:"element_id,omitempty"`
}

// PolicyVerdict is a policy's decision on one action.
type PolicyVerdict struct {
	Decision string   `json:"decision"`
	Rule     string   `json:"rule,omitempty"` // the rule that matched; empty: the default
	Message  string   `json:"message,omitempty"`
	Timeout  Duration `json:"timeout,omitempty"`
}
