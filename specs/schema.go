package specs

import "github.com/hashicorp/hcl/v2"

var fileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "task", LabelNames: []string{"name"}},
	},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "default"},
		{Name: "description"},
		{Name: "sensitive"},
	},
}

var taskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "instruction"},
		{Name: "max_steps"},
		{Name: "timeout"},
		{Name: "max_tokens"},
		{Name: "max_invalid"},
		{Name: "knowledge"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "device", LabelNames: []string{"name"}},
		{Type: "setup", LabelNames: []string{"name"}},
		{Type: "subtask", LabelNames: []string{"name"}},
		{Type: "check", LabelNames: []string{"name"}},
	},
}

var deviceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "platform"},
		{Name: "description"},
	},
}

var setupSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "device"},
		{Name: "launch"},
		{Name: "command"},
		{Name: "wait_for_window"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "write_file"}},
}

var writeFileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true},
		{Name: "content", Required: true},
	},
}

var subtaskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "instruction", Required: true},
		{Name: "device"},
		{Name: "depends_on"},
		{Name: "max_steps"},
		{Name: "timeout"},
		{Name: "max_tokens"},
		{Name: "knowledge"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "output", LabelNames: []string{"key"}},
		{Type: "check", LabelNames: []string{"name"}},
	},
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}},
}

// checkKinds are the condition blocks a check may hold, with their schemas.
var checkKinds = map[string]*hcl.BodySchema{
	"file": {Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "exists"}, {Name: "contains"}, {Name: "matches"}, {Name: "equals"},
	}},
	"command": {Attributes: []hcl.AttributeSchema{
		{Name: "argv", Required: true}, {Name: "exit_code"}, {Name: "stdout_contains"}, {Name: "stdout_matches"},
	}},
	"window_title": {Attributes: []hcl.AttributeSchema{{Name: "contains"}, {Name: "matches"}}},
	"screen_text":  {Attributes: []hcl.AttributeSchema{{Name: "contains", Required: true}}},
	"clipboard":    {Attributes: []hcl.AttributeSchema{{Name: "contains"}, {Name: "equals"}}},
	"cell": {Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "cell", Required: true}, {Name: "sheet"}, {Name: "equals"}, {Name: "contains"},
	}},
}

var checkKindOrder = []string{"file", "command", "window_title", "screen_text", "clipboard", "cell"}

func checkSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "after"}, {Name: "expect"}, {Name: "device"}},
	}
	for _, k := range checkKindOrder {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: k})
	}
	return s
}
