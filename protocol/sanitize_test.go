package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Checking the balance.", "Checking the balance."},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"colour", "\x1b[31mred\x1b[0m alert", "red alert"},
		{"cursor movement", "ok\x1b[2J\x1b[Hhidden", "okhidden"},
		{"title OSC with BEL", "\x1b]0;pwned\x07title", "title"},
		{"hyperlink OSC with ST", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"unterminated OSC eats the rest", "before\x1b]0;never ends", "before"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 control", "a\u0085b", "ab"},
		{"C0 controls", "a\x00b\x07c\x08d\re", "abcde"},
		{"DEL", "a\x7fb", "ab"},
		{"bidi override", "file\u202Egnp.exe", "filegnp.exe"},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", "abc"},
		{"marks kept", "a\u200Fb\u200Ec", "a\u200Fb\u200Ec"},
		{"Arabic kept", "تم تحويل المبلغ", "تم تحويل المبلغ"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"two-byte escape", "a\x1b(Bb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Text(tt.in).String(); got != tt.want {
				t.Errorf("Text.String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSanitizeCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("Fetching the Q3 report. ", 20)
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocated %v times", n)
	}
}

// FuzzSanitize checks that nothing a terminal would act on survives.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]0;t\x07", "\u202Eabc", "a\xffb", "\u009b2J", "\x1bP+q\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", in, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || isBidiControl(r) {
				t.Fatalf("Sanitize(%q) kept %U", in, r)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
	})
}
