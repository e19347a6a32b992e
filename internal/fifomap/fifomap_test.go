package fifomap

import "testing"

// TestKeepsTheLastAdded: the oldest key goes first, a key added again
// keeps its first value and its place.
func TestKeepsTheLastAdded(t *testing.T) {
	m := Map[string, int]{Max: 2}
	m.Add("a", 1)
	m.Add("b", 2)
	if m.Add("a", 9) {
		t.Error("a second Add of a key held replaced it")
	}
	m.Add("c", 3)
	if _, ok := m.Get("a"); ok {
		t.Error("the oldest key is still held past Max")
	}
	for k, want := range map[string]int{"b": 2, "c": 3} {
		if v, ok := m.Get(k); !ok || v != want {
			t.Errorf("Get(%q) = %d, %v; want %d", k, v, ok, want)
		}
	}
}
