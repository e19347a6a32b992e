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

func TestPrintable(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain text, пароль, 日本語", "plain text, пароль, 日本語"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"\x1b[2J\x1b]0;pwned\x07title", `\x1b[2J\x1b]0;pwned\x07title`},
		{"over\rwrite\b", `over\x0dwrite\x08`},
		{"del\x7f nul\x00", `del\x7f nul\x00`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{`C:\Users stays`, `C:\Users stays`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
