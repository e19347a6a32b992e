package freeport

import "testing"

func TestPickNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 500 {
		p, err := Pick("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] || p < lowPort || p > highPort {
			t.Fatalf("port %d handed out twice or outside %d-%d", p, lowPort, highPort)
		}
		seen[p] = true
	}
}
