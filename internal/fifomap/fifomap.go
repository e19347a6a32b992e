// Package fifomap is a map that holds the last keys added to it, up to a
// number, forgetting the oldest first: the memory of what was last made
// (decoded images, encodings, OCR reads), safe for concurrent use.
package fifomap

import "sync"

// Map holds up to Max entries (Max must be set; the zero Map with Max set
// is ready to use).
type Map[K comparable, V any] struct {
	Max   int
	mu    sync.Mutex
	order []K // oldest first
	m     map[K]V
}

// Get returns the value held under k.
func (m *Map[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

// Add holds v under k unless k is held already (then it keeps the value it
// has and returns false), forgetting the oldest key beyond Max.
func (m *Map[K, V]) Add(k K, v V) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[K]V{}
	}
	if _, ok := m.m[k]; ok {
		return false
	}
	m.m[k] = v
	m.order = append(m.order, k)
	if len(m.order) > m.Max {
		delete(m.m, m.order[0])
		m.order = m.order[1:]
	}
	return true
}
