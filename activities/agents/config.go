package agents

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

// Config selects the endpoint and per-role behaviour.
type Config struct {
	BaseURL string
	APIKey  string
	// Models per role; Manager and Progress may be text-only models.
	DecisionModel   string
	ReflectionModel string
	ProgressModel   string
	ManagerModel    string
	// JudgeModel answers judge checks and UserModel plays a task's
	// simulated user; "" is DecisionModel.
	JudgeModel  string
	UserModel   string
	Temperature float32
	MaxTokens   int
	Timeout     time.Duration
	// ImageMaxSide scales screenshots so the longest side is at most this
	// many pixels (0: unscaled); ImageFormat is "png" or "jpeg".
	ImageMaxSide int
	ImageFormat  string
	JPEGQuality  int
	// TextActions makes Decision answer in text instead of tool calls, for
	// models without function calling.
	TextActions bool
	// MaxReasks bounds how often an invalid answer is re-asked within one call.
	MaxReasks int
	// Profile is how the Decision agent's model wants to be spoken to
	// (protocol, coordinate space, image sizing, text format); the zero
	// value is openai-tools with ImageMaxSide and TextActions above.
	Profile profile.Profile
	// Roles are the profiles of the Reflection, Progress and Manager
	// agents, by role (agent.RoleReflection, …); a role without one speaks
	// openai-tools. What a profile changes for them: the protocol (a text
	// profile gets no tools and answers with a <tool_call>) and, for
	// Reflection, the size of the screenshots. See CheckRoleProfile.
	Roles map[string]profile.Profile
	// ProfilesFile is the JSON file of user profiles ($PCFLOW_PROFILES)
	// that the profiles a task names are looked up in, after the built-ins.
	ProfilesFile string
	// Profiles resolves the profiles a task names (nil: New makes them of
	// ProfilesFile). A process shares one, so the file is read once.
	Profiles *Profiles `json:"-"`
	// AnthropicAPIKey and AnthropicBaseURL, when the key is set, are where
	// the anthropic-computer profile goes (else BaseURL and APIKey).
	AnthropicAPIKey  string
	AnthropicBaseURL string
	// GrounderModel is the grounder's model (PCFLOW_MODEL_GROUNDER;
	// default the Decision agent's), unless its profile names one.
	GrounderModel string
	// Getenv reads the variable a profile's api_key_env names (os.Getenv
	// in production; nil: no key is sent to a profile's own endpoint).
	Getenv func(string) string `json:"-"`
	// Scripted says the endpoint is pcflow's scripted model (tests, the
	// example, scripted suites), never a real model: requests carry the
	// turn in X-Pcflow-Turn; real endpoints never get it.
	Scripted bool
}

// ConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and PCFLOW_MODEL*
// variables (PCFLOW_MODEL_SCRIPTED=1: the endpoint is the scripted model);
// getenv is os.Getenv in production.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{
		BaseURL:      getenv("OPENAI_BASE_URL"),
		APIKey:       getenv("OPENAI_API_KEY"),
		Temperature:  0,
		MaxTokens:    1024,
		Timeout:      120 * time.Second,
		ImageMaxSide: 1280,
		ImageFormat:  "png",
		JPEGQuality:  80,
		MaxReasks:    2,
	}
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	model := getenv("PCFLOW_MODEL")
	if model == "" {
		model = "gpt-4o"
	}
	c.DecisionModel, c.ReflectionModel, c.ProgressModel, c.ManagerModel = model, model, model, model
	if m := getenv("PCFLOW_MODEL_REFLECTION"); m != "" {
		c.ReflectionModel = m
	}
	if m := getenv("PCFLOW_MODEL_PROGRESS"); m != "" {
		c.ProgressModel = m
	}
	if m := getenv("PCFLOW_MODEL_MANAGER"); m != "" {
		c.ManagerModel = m
	}
	c.GrounderModel = c.DecisionModel
	if m := getenv("PCFLOW_MODEL_GROUNDER"); m != "" {
		c.GrounderModel = m
	}
	c.Getenv = getenv
	c.JudgeModel, c.UserModel = getenv("PCFLOW_MODEL_JUDGE"), getenv("PCFLOW_MODEL_USER")
	if v := getenv("PCFLOW_MODEL_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			c.Timeout = d
		}
	}
	if v := getenv("PCFLOW_IMAGE_MAX_SIDE"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			c.ImageMaxSide = n
		}
	}
	if v := getenv("PCFLOW_IMAGE_FORMAT"); v == "jpeg" || v == "png" {
		c.ImageFormat = v
	}
	if getenv("PCFLOW_TEXT_ACTIONS") == "1" {
		c.TextActions = true
	}
	c.Scripted = getenv("PCFLOW_MODEL_SCRIPTED") == "1"
	c.ProfilesFile = getenv("PCFLOW_PROFILES")
	c.AnthropicAPIKey, c.AnthropicBaseURL = getenv("ANTHROPIC_API_KEY"), getenv("ANTHROPIC_BASE_URL")
	if c.AnthropicBaseURL == "" {
		c.AnthropicBaseURL = "https://api.anthropic.com/v1"
	}
	return c
}

// CheckEnv says which of the model settings in the environment
// ConfigFromEnv would drop as invalid (a negative timeout, a size that is
// not a number, an unknown image format), naming the variable, its value
// and what it takes; nil when every one that is set is valid.
func CheckEnv(getenv func(string) string) error {
	var errs []error
	if v := getenv("PCFLOW_MODEL_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("PCFLOW_MODEL_TIMEOUT=%q is not a positive duration: write one such as \"120s\" or \"5m\" (how long one model request may take), or unset it for the default, 120s", v))
		}
	}
	if v := getenv("PCFLOW_IMAGE_MAX_SIDE"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("PCFLOW_IMAGE_MAX_SIDE=%q is not a positive whole number: write the longest side in pixels the model is sent, such as 1280, or unset it for the default, 1280", v))
		}
	}
	if v := getenv("PCFLOW_IMAGE_FORMAT"); v != "" && v != "jpeg" && v != "png" {
		errs = append(errs, fmt.Errorf("PCFLOW_IMAGE_FORMAT=%q: write png or jpeg, or unset it for the default, png", v))
	}
	return errors.Join(errs...)
}

// RoleProfile is the profile of a role other than Decision (the zero
// Profile when none was chosen: openai-tools with ImageMaxSide).
func (c Config) RoleProfile(role string) profile.Profile { return c.Roles[role] }

// ProfileRoles are the roles besides Decision that take a profile.
var ProfileRoles = []string{agent.RoleReflection, agent.RoleProgress, agent.RoleManager, agent.RoleJudge, agent.RoleUser, agent.RoleGrounder}

// roleModel is the model a role other than Decision's asks: its own, or
// the Decision agent's.
func (c Config) roleModel(role string) string {
	m := map[string]string{agent.RoleReflection: c.ReflectionModel, agent.RoleProgress: c.ProgressModel,
		agent.RoleManager: c.ManagerModel, agent.RoleJudge: c.JudgeModel, agent.RoleUser: c.UserModel}[role]
	if m == "" {
		return c.DecisionModel
	}
	return m
}

// CheckRoleProfile says whether role (decision, reflection, progress,
// manager, judge or user) can speak profile p: the computer-use protocols are the
// Decision agent's alone.
func CheckRoleProfile(role string, p profile.Profile) error {
	switch role {
	case agent.RoleDecision:
		return nil
	case agent.RoleGrounder:
		// Every profile has a coordinate space; a computer-use one
		// answers with its computer tool's click.
		return nil
	case agent.RoleReflection, agent.RoleProgress, agent.RoleManager, agent.RoleJudge, agent.RoleUser:
	default:
		return fmt.Errorf("unknown agent %q: profiles are for decision, reflection, progress, manager, judge, user and grounder", role)
	}
	switch p.Protocol {
	case profile.ProtoOpenAIComputer, profile.ProtoAnthropicComputer:
		return fmt.Errorf("profile %s speaks a computer-use tool, which only the Decision agent can: give the %s agent openai-tools or a text profile (qwen2.5-vl, qwen3-vl)", p.Name, role)
	}
	return nil
}
