package plan

import (
	"fmt"
	"sort"
	"strings"
)

// Graph is a dependency graph over named nodes: a node waits for the nodes
// it depends on. It remembers the order nodes were added in, so every
// operation gives the same answer for the same input (workflows rely on
// that). Dependencies on names that are not nodes are ignored.
type Graph struct {
	nodes []string
	deps  map[string][]string
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{deps: map[string][]string{}} }

// Add adds node name, which depends on deps. Adding a name twice keeps its
// first position and merges the dependencies.
func (g *Graph) Add(name string, deps ...string) {
	if _, ok := g.deps[name]; !ok {
		g.nodes = append(g.nodes, name)
		g.deps[name] = nil
	}
	g.deps[name] = append(g.deps[name], deps...)
}

// SubtaskGraph is the graph of subtasks and their depends_on.
func SubtaskGraph(subtasks []Subtask) *Graph {
	g := NewGraph()
	for _, s := range subtasks {
		g.Add(s.Name, s.DependsOn...)
	}
	return g
}

// CheckGraph is the graph of checks and their after entries.
func CheckGraph(checks []Check) *Graph {
	g := NewGraph()
	for _, c := range checks {
		g.Add(c.Name, c.After...)
	}
	return g
}

// Nodes returns the nodes in the order they were added.
func (g *Graph) Nodes() []string { return append([]string(nil), g.nodes...) }

// known returns the sorted dependencies of n that are nodes.
func (g *Graph) known(n string) []string {
	var ds []string
	for _, d := range g.deps[n] {
		if _, ok := g.deps[d]; ok {
			ds = append(ds, d)
		}
	}
	sort.Strings(ds)
	return ds
}

// Cycle returns one dependency cycle as a closed path (the first name
// repeated at the end: a → b → a), or nil when there is none. Nodes are
// visited in sorted order so the answer is stable.
func (g *Graph) Cycle() []string {
	names := append([]string(nil), g.nodes...)
	sort.Strings(names)
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack, found []string
	var visit func(string) bool
	visit = func(n string) bool {
		color[n] = grey
		stack = append(stack, n)
		for _, d := range g.known(n) {
			switch color[d] {
			case grey:
				for i, s := range stack {
					if s == d {
						found = append(append([]string(nil), stack[i:]...), d)
						return true
					}
				}
			case white:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
		return false
	}
	for _, n := range names {
		if color[n] == white && visit(n) {
			return found
		}
	}
	return nil
}

// CycleError reports a dependency cycle.
type CycleError struct {
	// Path is the cycle as a closed path: a → b → a.
	Path []string
}

func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Path, " → ")
}

// Order returns the nodes so that each comes after everything it depends
// on, keeping the order they were added in otherwise (dependencies are
// placed in name order). It fails with a *CycleError on a cycle.
func (g *Graph) Order() ([]string, error) {
	if cyc := g.Cycle(); cyc != nil {
		return nil, &CycleError{Path: cyc}
	}
	done := map[string]bool{}
	out := make([]string, 0, len(g.nodes))
	var visit func(string)
	visit = func(n string) {
		if done[n] {
			return
		}
		done[n] = true
		for _, d := range g.known(n) {
			visit(d)
		}
		out = append(out, n)
	}
	for _, n := range g.nodes {
		visit(n)
	}
	return out, nil
}

// Layers groups the nodes into layers: every node of layer i depends only on
// nodes of earlier layers, and on at least one of layer i-1, so a layer's
// nodes can run in parallel once the layers before it are done. Names
// within a layer are sorted. It fails with a *CycleError on a cycle.
func (g *Graph) Layers() ([][]string, error) {
	if cyc := g.Cycle(); cyc != nil {
		return nil, &CycleError{Path: cyc}
	}
	level := map[string]int{}
	var depth func(string) int
	depth = func(n string) int {
		if l, ok := level[n]; ok {
			return l
		}
		l := 0
		for _, d := range g.known(n) {
			if dl := depth(d) + 1; dl > l {
				l = dl
			}
		}
		level[n] = l
		return l
	}
	var layers [][]string
	for _, n := range g.nodes {
		l := depth(n)
		for len(layers) <= l {
			layers = append(layers, nil)
		}
		layers[l] = append(layers[l], n)
	}
	for _, l := range layers {
		sort.Strings(l)
	}
	return layers, nil
}

// Ancestors returns every node name waits for, directly or not.
func (g *Graph) Ancestors(name string) map[string]bool {
	seen := map[string]bool{}
	stack := g.known(name)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, g.known(n)...)
	}
	return seen
}

// WaitsFor returns which of others name waits for, directly or not. It
// stops searching once it has found them all, so asking about a node's
// direct dependencies costs little however long the chain behind them.
func (g *Graph) WaitsFor(name string, others []string) map[string]bool {
	want := map[string]bool{}
	for _, o := range others {
		want[o] = true
	}
	found := map[string]bool{}
	seen := map[string]bool{}
	stack := g.known(name)
	for len(stack) > 0 && len(found) < len(want) {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		if want[n] {
			found[n] = true
		}
		stack = append(stack, g.known(n)...)
	}
	return found
}

// Waited returns the nodes some node depends on: a node not in it is one
// nothing waits for. One pass over the graph, where asking Dependents of
// every node would be quadratic.
func (g *Graph) Waited() map[string]bool {
	w := map[string]bool{}
	for _, n := range g.nodes {
		for _, d := range g.deps[n] {
			if _, ok := g.deps[d]; ok {
				w[d] = true
			}
		}
	}
	return w
}

// Dependents returns every node that waits for name, directly or not.
func (g *Graph) Dependents(name string) map[string]bool {
	rev := map[string][]string{}
	for _, n := range g.nodes {
		for _, d := range g.known(n) {
			rev[d] = append(rev[d], n)
		}
	}
	seen := map[string]bool{}
	stack := append([]string(nil), rev[name]...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, rev[n]...)
	}
	return seen
}

// Layers groups subtasks into dependency layers (see Graph.Layers).
func Layers(subtasks []Subtask) ([][]string, error) {
	return SubtaskGraph(subtasks).Layers()
}

// String lists the graph as "a ← b, c; d" for messages and tests.
func (g *Graph) String() string {
	var parts []string
	for _, n := range g.nodes {
		if ds := g.known(n); len(ds) > 0 {
			parts = append(parts, fmt.Sprintf("%s ← %s", n, strings.Join(ds, ", ")))
		} else {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "; ")
}
