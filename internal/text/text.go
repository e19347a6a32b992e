// Package text holds small string helpers shared across pcflow.
package text

// Trunc shortens s to at most n runes, marking a cut with "…". It never
// splits a UTF-8 sequence.
func Trunc(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n runes
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Uniq returns xs without repeats, in the order each first appears.
func Uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
