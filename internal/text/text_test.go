package text

import "testing"

func TestTrunc(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 5, "hello…"},
		{"пароль секрет", 6, "пароль…"},
		{"日本語テキスト", 3, "日本語…"},
		{"ab", 0, "…"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := Trunc(tt.in, tt.n); got != tt.want {
			t.Errorf("Trunc(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
