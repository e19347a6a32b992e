package plan

import "testing"

func TestEvalOperatorsAndFunctions(t *testing.T) {
	outs := Outputs{"a": {"n": "84", "s": " Hi "}}
	out := func(k string) Expr { return Expr{Kind: ExprOutput, Ref: []string{"a", k}} }
	call := func(fn string, args ...Expr) Expr { return Expr{Kind: ExprCall, Fn: fn, Args: args} }
	bin := func(op string, l, r Expr) Expr { return Expr{Kind: ExprBinary, Op: op, Args: []Expr{l, r}} }
	tests := []struct {
		name string
		e    Expr
		want any
	}{
		{"text equals number", bin("==", out("n"), Lit(84.0)), true},
		{"arithmetic on text", bin("+", out("n"), Lit(1.0)), 85.0},
		{"trimspace upper", call("upper", call("trimspace", out("s"))), "HI"},
		{"template", Expr{Kind: ExprTemplate, Args: []Expr{Lit("n="), out("n")}}, "n=84"},
		{"regex group", call("regex", Lit(`(\d+)`), Lit("total 2230 EUR")), "2230"},
		{"format", call("format", Lit("%s=%d"), Lit("x"), Lit(3.0)), "x=3"},
		{"secret stays a placeholder", Expr{Kind: ExprSecret, Ref: []string{"pw"}}, "{{secret.pw}}"},
		{"short circuit", bin("||", Lit(true), bin("/", Lit(1.0), Lit(0.0))), true},
	}
	for _, tt := range tests {
		got, err := tt.e.Eval(outs)
		if err != nil || got != tt.want {
			t.Errorf("%s: Eval = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := out("missing").Eval(outs); err == nil {
		t.Error("reading an output that does not exist succeeded")
	}
	if _, err := bin("/", Lit(1.0), Lit(0.0)).Eval(nil); err == nil {
		t.Error("division by zero succeeded")
	}
}
