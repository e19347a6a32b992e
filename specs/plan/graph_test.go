package plan

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func graph(edges ...[]string) *Graph {
	g := NewGraph()
	for _, e := range edges {
		g.Add(e[0], e[1:]...)
	}
	return g
}

func TestGraphCycle(t *testing.T) {
	tests := []struct {
		name string
		g    *Graph
		want []string
	}{
		{"none", graph([]string{"a"}, []string{"b", "a"}, []string{"c", "a", "b"}), nil},
		{"self", graph([]string{"a", "a"}), []string{"a", "a"}},
		{"three", graph([]string{"c", "b"}, []string{"a", "c"}, []string{"b", "a"}, []string{"d", "a"}), []string{"a", "c", "b", "a"}},
		{"unknown deps ignored", graph([]string{"a", "zz"}, []string{"b", "a", "nope"}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.g.Cycle()); diff != "" {
				t.Errorf("Cycle(%s) mismatch (-want +got):\n%s", tt.g, diff)
			}
		})
	}
}

func TestGraphOrder(t *testing.T) {
	tests := []struct {
		name string
		g    *Graph
		want []string
	}{
		{"declaration order kept", graph([]string{"z"}, []string{"a"}, []string{"m"}), []string{"z", "a", "m"}},
		{"dependencies first", graph([]string{"report", "save", "open"}, []string{"save", "open"}, []string{"open"}), []string{"open", "save", "report"}},
		{"diamond", graph([]string{"d", "c", "b"}, []string{"b", "a"}, []string{"c", "a"}, []string{"a"}), []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.g.Order()
			if err != nil {
				t.Fatalf("Order(%s) = %v", tt.g, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Order(%s) mismatch (-want +got):\n%s", tt.g, diff)
			}
		})
	}
	_, err := graph([]string{"a", "b"}, []string{"b", "a"}).Order()
	var ce *CycleError
	if !errors.As(err, &ce) || cmp.Diff([]string{"a", "b", "a"}, ce.Path) != "" {
		t.Errorf("Order of a cycle = %v, want a CycleError a → b → a", err)
	}
}

func TestGraphLayers(t *testing.T) {
	g := graph([]string{"c", "a", "b"}, []string{"b"}, []string{"a"}, []string{"d", "c"}, []string{"e", "a"})
	got, err := g.Layers()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "b"}, {"c", "e"}, {"d"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Layers(%s) mismatch (-want +got):\n%s", g, diff)
	}
	if _, err := graph([]string{"a", "b"}, []string{"b", "a"}).Layers(); err == nil {
		t.Error("Layers of a cycle succeeded")
	}
}

func TestGraphReachability(t *testing.T) {
	g := graph([]string{"a"}, []string{"b", "a"}, []string{"c", "b"}, []string{"d"}, []string{"e", "d", "c"})
	if diff := cmp.Diff(map[string]bool{"a": true, "b": true, "c": true, "d": true}, g.Ancestors("e")); diff != "" {
		t.Errorf("Ancestors(e) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"b": true, "c": true, "e": true}, g.Dependents("a")); diff != "" {
		t.Errorf("Dependents(a) mismatch (-want +got):\n%s", diff)
	}
	if got := g.Dependents("e"); len(got) != 0 {
		t.Errorf("Dependents(e) = %v, want none", got)
	}
	if diff := cmp.Diff(map[string]bool{"a": true, "d": true}, g.WaitsFor("e", []string{"a", "d", "e", "nope"})); diff != "" {
		t.Errorf("WaitsFor(e, a d e nope) mismatch (-want +got):\n%s", diff)
	}
	if got := g.WaitsFor("b", []string{"c"}); len(got) != 0 {
		t.Errorf("WaitsFor(b, c) = %v, want none", got)
	}
	if diff := cmp.Diff(map[string]bool{"a": true, "b": true, "c": true, "d": true}, g.Waited()); diff != "" {
		t.Errorf("Waited mismatch (-want +got):\n%s", diff)
	}
}
