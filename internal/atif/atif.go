// Package atif writes a run as an ATIF trajectory: Harbor's Agent
// Trajectory Interchange Format, version 1.7 (ATIF-v1.7).
//
// The exporter reads nothing itself: it is given a Run, what `pcflow
// history` reads of a run from Temporal, and builds a Trajectory from it.
// The run is the root trajectory (its Manager level: the task, one step
// per subtask it dispatched, the result); each subtask is a sub-agent
// trajectory embedded in the root's subagent_trajectories and named by
// the root's step that ran it. A subtask's steps are the agent loop's:
// the Decision agent's thought (reasoning_content) and action (a tool
// call), what the device did and Reflection's verdict (the observation,
// with the screenshot after the step as an image), the tokens and, when
// prices are given, the cost (metrics).
//
// Secrets: everything a Run holds comes from a redacted history, so a
// sensitive value appears as its {{secret.NAME}} placeholder. Marshal also
// passes every string of the document through Options.Redact, so a value
// the caller still knows (a PCFLOW_SECRET_* variable) cannot get in.
package atif

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// SchemaVersion is the ATIF version the exporter writes.
const SchemaVersion = "ATIF-v1.7"

// Trajectory is an ATIF trajectory document (the root, or an embedded
// sub-agent's).
type Trajectory struct {
	SchemaVersion        string         `json:"schema_version"`
	SessionID            string         `json:"session_id,omitempty"`
	TrajectoryID         string         `json:"trajectory_id,omitempty"`
	Agent                Agent          `json:"agent"`
	Steps                []Step         `json:"steps"`
	Notes                string         `json:"notes,omitempty"`
	FinalMetrics         *FinalMetrics  `json:"final_metrics,omitempty"`
	Extra                map[string]any `json:"extra,omitempty"`
	SubagentTrajectories []Trajectory   `json:"subagent_trajectories,omitempty"`
}

// Agent is the agent system that produced a trajectory.
type Agent struct {
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	ModelName string         `json:"model_name,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"`
}

// Step is one step of a trajectory.
type Step struct {
	StepID           int            `json:"step_id"`
	Source           string         `json:"source"` // system, user or agent
	ModelName        string         `json:"model_name,omitempty"`
	Message          Content        `json:"message"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall     `json:"tool_calls,omitempty"`
	Observation      *Observation   `json:"observation,omitempty"`
	Metrics          *Metrics       `json:"metrics,omitempty"`
	LLMCallCount     *int           `json:"llm_call_count,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// Content is a message or an observation's content: text alone is a JSON
// string, text with images an array of content parts.
type Content struct {
	Text   string
	Images []Image
}

// Image is an image content part's source: a file path or URL.
type Image struct {
	MediaType string `json:"media_type"`
	Path      string `json:"path"`
}

type contentPart struct {
	Type   string `json:"type"`
	Text   string `json:"text,omitempty"`
	Source *Image `json:"source,omitempty"`
}

// MarshalJSON writes c as a string, or as content parts when it has images.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Images) == 0 {
		return json.Marshal(c.Text)
	}
	var parts []contentPart
	if c.Text != "" {
		parts = append(parts, contentPart{Type: "text", Text: c.Text})
	}
	for i := range c.Images {
		parts = append(parts, contentPart{Type: "image", Source: &c.Images[i]})
	}
	return json.Marshal(parts)
}

// UnmarshalJSON reads either form.
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = Content{}
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Text)
	}
	var parts []contentPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.Type == "text":
			texts = append(texts, p.Text)
		case p.Type == "image" && p.Source != nil:
			c.Images = append(c.Images, *p.Source)
		}
	}
	c.Text = strings.Join(texts, "\n")
	return nil
}

// ToolCall is one action the agent took.
type ToolCall struct {
	ToolCallID   string         `json:"tool_call_id"`
	FunctionName string         `json:"function_name"`
	Arguments    map[string]any `json:"arguments"`
}

// Observation is what came back from a step's tool calls.
type Observation struct {
	Results []Result `json:"results"`
}

// Result is one result of an observation.
type Result struct {
	SourceCallID string        `json:"source_call_id,omitempty"`
	Content      *Content      `json:"content,omitempty"`
	SubagentRefs []SubagentRef `json:"subagent_trajectory_ref,omitempty"`
}

// SubagentRef names an embedded sub-agent trajectory by its trajectory id.
type SubagentRef struct {
	TrajectoryID string `json:"trajectory_id"`
	SessionID    string `json:"session_id,omitempty"`
}

// Metrics are a step's model usage.
type Metrics struct {
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	CostUSD          *float64       `json:"cost_usd,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// FinalMetrics sum a trajectory's metrics.
type FinalMetrics struct {
	TotalPromptTokens     int      `json:"total_prompt_tokens"`
	TotalCompletionTokens int      `json:"total_completion_tokens"`
	TotalCostUSD          *float64 `json:"total_cost_usd,omitempty"`
	TotalSteps            int      `json:"total_steps"`
}

// ImageOf is the image content of a screenshot file, or false when its
// extension names no image type ATIF allows (png, jpeg, gif, webp).
func ImageOf(path string) (Image, bool) {
	types := map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
	mt, ok := types[strings.ToLower(filepath.Ext(path))]
	if path == "" || !ok {
		return Image{}, false
	}
	return Image{MediaType: mt, Path: path}, true
}

// Marshal writes t as indented JSON, every string of it (keys aside)
// passed through redact when redact is set.
func Marshal(t Trajectory, redact func(string) string) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode trajectory: %w", err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("encode trajectory: %w", err)
	}
	if redact != nil {
		doc = redactAll(doc, redact)
	}
	return json.MarshalIndent(doc, "", "  ")
}

func redactAll(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case []any:
		for i := range v {
			v[i] = redactAll(v[i], redact)
		}
	case map[string]any:
		for k := range v {
			v[k] = redactAll(v[k], redact)
		}
	}
	return v
}
