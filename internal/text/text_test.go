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

func TestUniq(t *testing.T) {
	got := Uniq([]string{"soffice", "xterm", "soffice", "", "xterm", ""})
	want := []string{"soffice", "xterm", ""}
	if len(got) != len(want) {
		t.Fatalf("Uniq = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Uniq = %q, want %q", got, want)
		}
	}
}
