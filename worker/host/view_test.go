package host

import (
	"strings"
	"testing"
)

// TestExposedViewWarns: a worker's live view on every interface was
// served without a word; it is warned about, naming the address.
func TestExposedViewWarns(t *testing.T) {
	for _, tt := range []struct {
		addr string
		warn bool
	}{
		{"0.0.0.0:8080", true},
		{"[::]:8080", true},
		{":8080", true},
		{"127.0.0.1:0", false},
		{"10.0.0.5:8080", false},
		{"[::1]:0", false},
	} {
		got := exposedView(tt.addr, "lab")
		if tt.warn != (got != "") || tt.warn && (!strings.Contains(got, "--view-addr "+tt.addr) || !strings.Contains(got, "device lab")) {
			t.Errorf("exposedView(%q) = %q, want a warning: %v", tt.addr, got, tt.warn)
		}
	}
}
