package agents

import (
	"bytes"
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/screen"
)

// tool declares a function-calling tool with a JSON-schema parameter list.
func tool(name, desc, params string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc, Parameters: json.RawMessage(params),
	}}
}

// actionTools is pcflow's own action space (screen.Table's offered kinds)
// as function-calling tools, coordinates in pixels of the image; done's
// outputs are the declared ones. Targets named by description are left
// out: see describedTools.
func actionTools(outputs []string) []openai.Tool { return describedTools(outputs, false, "") }

// describedTools is actionTools with coordinates in the words of hint (a
// profile's CoordinateHint; "": pixels of the image) and, when described
// is set (a grounder is configured), the arguments that name a target by
// description (target, a drag's to).
func describedTools(outputs []string, described bool, hint string) []openai.Tool {
	var ts []openai.Tool
	for _, k := range screen.Table() {
		if !k.Offered {
			continue
		}
		var ps []screen.Param
		for _, p := range k.Params {
			switch {
			case p.Name == "target" || p.Name == "to":
				if !described {
					continue
				}
			case described && k.Kind == screen.ActDrag:
				p.Required = false // a description may stand for a point
			}
			if p.Coordinate {
				p.Doc = coordinateDoc(p.Name, hint, p.Doc)
			}
			ps = append(ps, p)
		}
		doc := k.Doc
		if k.DocSpace {
			space := "pixels of the image"
			if hint != "" {
				space = hint
			}
			doc = strings.TrimSuffix(doc, ".") + " (" + space + ")."
		}
		ts = append(ts, tool(k.Kind, doc, paramsSchema(ps, outputs)))
	}
	return ts
}

// coordinateDoc describes a coordinate argument on axis: in hint's words
// ("x: x and y in thousandths…"), or in pixels of the image when hint is
// "", then what doc adds.
func coordinateDoc(axis, hint, doc string) string {
	s := "pixel " + axis + " in the image"
	if hint != "" {
		s = axis + ": " + hint
	}
	if doc != "" {
		s += ", " + doc
	}
	return s
}

// jsonType is the JSON Schema of one argument.
type jsonType struct {
	Type        string              `json:"type,omitempty"`
	Description string              `json:"description,omitempty"`
	Enum        []string            `json:"enum,omitempty"`
	Items       *jsonType           `json:"items,omitempty"`
	Properties  map[string]jsonType `json:"properties,omitempty"`
	Required    []string            `json:"required,omitempty"`
}

// paramsSchema is the JSON Schema object of a tool's parameters, in their
// order.
func paramsSchema(ps []screen.Param, outputs []string) string {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var req []string
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		b.Write(name)
		b.WriteByte(':')
		t := jsonType{Type: p.Type, Description: p.Doc, Enum: p.Enum}
		if p.Items != "" {
			t.Items = &jsonType{Type: p.Items}
		}
		if p.Type == screen.TypeOutputs {
			t = outputsSchema(outputs)
		}
		v, _ := json.Marshal(t)
		b.Write(v)
		if p.Required {
			req = append(req, p.Name)
		}
	}
	b.WriteByte('}')
	if len(req) > 0 {
		r, _ := json.Marshal(req)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteByte('}')
	return b.String()
}

// outputsSchema is done's outputs: the declared ones, each a string, all
// required (any object where none are declared).
func outputsSchema(outputs []string) jsonType {
	if len(outputs) == 0 {
		return jsonType{}
	}
	t := jsonType{Type: "object", Properties: map[string]jsonType{}, Required: outputs}
	for _, o := range outputs {
		t.Properties[o] = jsonType{Type: "string"}
	}
	return t
}
