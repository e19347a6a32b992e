package profile

// PyCall is one call statement read by ReadPyCalls: Fn(Args…, Kw…).
// Values are string, float64, bool, nil, []any, or a PyName where the
// caller allowed one.
type PyCall struct {
	Fn   string
	Args []any
	Kw   map[string]any
	Line int // 1-based line of the code where the call starts
}

// PyName is a dotted name given as an argument (pyautogui.easeInQuad),
// read only where ReadPyCalls's nameArg allows it: a name, never looked
// up or called.
type PyName string

// ReadPyCalls reads code with the opencua format's reader: call
// statements of dotted names with literal arguments, one a line or
// separated by semicolons, and nothing else (no expression, assignment,
// import, attribute access or call inside an argument). known says which
// names may be called (names lists them for the "unknown call" error);
// nameArg, when not nil, which dotted names may stand as an argument.
// Nothing is run.
func ReadPyCalls(code string, known func(string) bool, names string, nameArg func(string) bool) ([]PyCall, error) {
	r := &pyReader{s: code, known: known, names: names, nameArg: nameArg}
	calls, err := r.calls()
	if err != nil {
		return nil, err
	}
	out := make([]PyCall, len(calls))
	for i, c := range calls {
		out[i] = PyCall{Fn: c.fn, Args: c.args, Kw: c.kw, Line: c.line}
	}
	return out, nil
}
