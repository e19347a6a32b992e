package report

import "encoding/json"

// Results written before partial credit have no pc or mean_pc. Their runs
// had no weights and no scores, so their partial credit was their CR: rows
// and aggregates read it so.

// UnmarshalJSON reads a row, one from before partial credit too.
func (r *Row) UnmarshalJSON(b []byte) error {
	type plain Row
	var v struct {
		plain
		PC *float64 `json:"pc"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Row(v.plain)
	r.PC = r.CR
	if v.PC != nil {
		r.PC = *v.PC
	}
	return nil
}

// UnmarshalJSON reads an aggregate, one from before partial credit too.
func (a *Aggregate) UnmarshalJSON(b []byte) error {
	type plain Aggregate
	var v struct {
		plain
		MeanPC *float64 `json:"mean_pc"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*a = Aggregate(v.plain)
	a.MeanPC = a.MeanCR
	if v.MeanPC != nil {
		a.MeanPC = *v.MeanPC
	}
	return nil
}
