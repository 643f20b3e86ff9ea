package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/internal/hostile"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Checking the balance.", "Checking the balance."},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"newline kept beside a control", "a\n\x07b", "a\nb"},
		{"colour", "\x1b[31mred\x1b[0m alert", "red alert"},
		{"cursor movement", "ok\x1b[2J\x1b[Hhidden", "okhidden"},
		{"title OSC with BEL", "\x1b]0;pwned\x07title", "title"},
		{"hyperlink OSC with ST", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"unterminated OSC eats the rest", "before\x1b]0;never ends", "before"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 control", "a\u0086b", "ab"},
		{"C0 controls", "a\x00b\x07c\x08de", "abcde"},
		{"line breaks become LF", "a\rb\r\nc\vd\fe\u0085f\u2028g\u2029h", "a\nb\nc\nd\ne\nf\ng\nh"},
		{"zero-width removed", "Ba\u200bnk\u2060\ufeff", "Bank"},
		{"lone joiners removed", "a\u200db\u200c", "ab"},
		{"emoji joiner kept", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
		{"Persian non-joiner kept", "می\u200cخواهم", "می\u200cخواهم"},
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
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]0;t\x07", "\u202Eabc", "a\xffb", "\u009b2J", "\x1bP+q\x1b\\",
		"a   b", "a\u3000\u00a0 b", " \u200b ", "\u2800\u2800", "x\u3164 \uffa0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", in, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || isBidiControl(r) || isHidden(r) || isLineBreak(r) {
				t.Fatalf("Sanitize(%q) kept %U", in, r)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
		for _, f := range []func(string) string{Line, Name} {
			one := f(in)
			if strings.ContainsAny(one, "\n\t") {
				t.Fatalf("single-line form of %q kept a break: %q", in, one)
			}
			if strings.Contains(one, "  ") || strings.ContainsFunc(one, func(r rune) bool { return r != ' ' && isBlank(r) }) {
				t.Fatalf("single-line form of %q kept padding: %q", in, one)
			}
			if again := f(one); again != one {
				t.Fatalf("single-line form not idempotent: %q then %q", one, again)
			}
			if again := Line(one); again != one {
				t.Fatalf("Line changed a sanitized single line: %q then %q", one, again)
			}
		}
	})
}

func TestLineAndName(t *testing.T) {
	tests := []struct{ in, line, name string }{
		{"Bank", "Bank", "Bank"},
		{"Bank\nCRITICAL fake", "Bank CRITICAL fake", "Bank CRITICAL fake"},
		{"a\r\n\r\n\tb", "a b", "a b"},
		{"a\u2028b\u0085c", "a b c", "a b c"},
		{"Ba\u200bnk", "Bank", "Ba<U+200B>nk"},
		{"Bank\u200d", "Bank", "Bank<U+200D>"},
		{"Bank\u200e", "Bank\u200e", "Bank<U+200E>"},
		{"\ufeffBank\u2060", "Bank", "<U+FEFF>Bank<U+2060>"},
		{"Ba\u00adnk", "Ba\u00adnk", "Ba<U+00AD>nk"},
		{"\u3164", " ", "<U+3164>"},
		{"a\ufe0f", "a\ufe0f", "a<U+FE0F>"},
		{"❤\ufe0f", "❤\ufe0f", "❤\ufe0f"},
		{"\x1b]0;title\x07Bank", "Bank", "Bank"},
		// Issue 23 item 9: padding to the terminal's width, so that the
		// terminal wraps the rest onto a row of its own, is folded.
		{"Bank" + strings.Repeat(" ", 70) + "CRITICAL fake", "Bank CRITICAL fake", "Bank CRITICAL fake"},
		{"a  b", "a b", "a b"},
		{" a ", " a ", " a "},
		{"a \t \n b", "a b", "a b"},
		{"a\u00a0\u00a0b\u2002\u2003\u2009\u200ac", "a b c", "a b c"},
		{"a\u3000\u3000b\u205f\u202f\u1680c", "a b c", "a b c"},
		{"a \u200b \u2060 \ufeff b", "a b", "a <U+200B> <U+2060> <U+FEFF> b"},
		{"a\u2800\u2800b\uffa0\u3164c", "a b c", "a b<U+FFA0><U+3164>c"},
		{"a\u2028\u2029 \u0085b", "a b", "a b"},
		{"日本語\u3000です。", "日本語 です。", "日本語 です。"},
		{"한국어 문장", "한국어 문장", "한국어 문장"},
		// Past eight bytes, where ASCII is read a word at a time.
		{"Fetching the\treport now", "Fetching the report now", "Fetching the report now"},
		{"Fetching the report\nnow", "Fetching the report now", "Fetching the report now"},
		{"Fetching  the report now", "Fetching the report now", "Fetching the report now"},
		{"Fetchin  g the report now", "Fetchin g the report now", "Fetchin g the report now"},
		{"Fetching the report      now", "Fetching the report now", "Fetching the report now"},
		{"Fetching the report\u00a0now", "Fetching the report now", "Fetching the report now"},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := Name(tt.in); got != tt.name {
			t.Errorf("Name(%q) = %q, want %q", tt.in, got, tt.name)
		}
		if got := Text(tt.in).Name(); got != tt.name {
			t.Errorf("Text.Name(%q) = %q, want %q", tt.in, got, tt.name)
		}
	}
}

// TestSanitizeHostileCorpus runs every hostile string and a 1 MB grapheme
// run through the three forms.
func TestSanitizeHostileCorpus(t *testing.T) {
	cases := append([]hostile.Case{}, hostile.Cases...)
	cases = append(cases, hostile.Case{Name: "1 MB grapheme run", S: hostile.GraphemeRun(1 << 20)})
	for _, c := range cases {
		for name, f := range map[string]func(string) string{"Line": Line, "Name": Name} {
			out := f(c.S)
			if p := hostile.Problems(out); len(p) > 0 {
				t.Errorf("%s(%s): %v", name, c.Name, p)
			}
			if len(out) > 4096 {
				t.Errorf("%s(%s) is %d bytes long", name, c.Name, len(out))
			}
		}
	}
}

func BenchmarkSanitizeGraphemeRun(b *testing.B) {
	s := hostile.GraphemeRun(1 << 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Line(s)
	}
}

func BenchmarkSanitizeClean(b *testing.B) {
	s := strings.Repeat("Fetching the Q3 report. ", 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Line(s)
	}
}
