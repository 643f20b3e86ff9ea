package prose

import "testing"

func TestStop(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Done", "Done."},
		{"Done.", "Done."},
		{"Done. ", "Done."},
		{"Which time should I book the table for?", "Which time should I book the table for?"},
		{"Stop!", "Stop!"},
		{"Wait…", "Wait…"},
		{"Wait...", "Wait..."},
		{`He said "yes."`, `He said "yes."`},
		{"He said “yes?”", "He said “yes?”"},
		{"(see the bill.)", "(see the bill.)"},
		{"(see the bill)", "(see the bill)."},
		{`the answer "20:00"`, `the answer "20:00".`},
		{"هل أنت متأكد؟", "هل أنت متأكد؟"},
		{"好的。", "好的。"},
		{"Context:", "Context."},
		{"one, two,", "one, two."},
		{"Lisbon Energy.", "Lisbon Energy."},
		{"\u2068Which time?\u2069", "\u2068Which time?\u2069"},
		{"\u2068Done\u2069", "\u2068Done\u2069."},
		{"\u2068Context:\u2069", "\u2068Context\u2069."},
	}
	for _, tt := range tests {
		if got := Stop(tt.in); got != tt.want {
			t.Errorf("Stop(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Stop(Stop(tt.in)); got != Stop(tt.in) {
			t.Errorf("Stop is not idempotent on %q: %q", tt.in, got)
		}
	}
}

func TestJoin(t *testing.T) {
	if got := Join("Started", "", "Book a table?", " x "); got != "Started. Book a table? x." {
		t.Errorf("Join = %q", got)
	}
	if got := Join("", ""); got != "" {
		t.Errorf("Join of nothing = %q", got)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 replies", 1: "1 reply", 2: "2 replies"} {
		if got := Count(n, "reply", "replies"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestList(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := List(tt.in); got != tt.want {
			t.Errorf("List(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "",
		"set rate takes a number":    "Set rate takes a number.",
		"there is no setting \"x\";": "There is no setting \"x\".",
		"élan vital":                 "Élan vital.",
		"Already one.":               "Already one.",
	} {
		if got := Sentence(in); got != want {
			t.Errorf("Sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"bank", 4, "bank"}, {"banks", 4, "ban…"}, {"", 3, ""}, {"äöüß", 3, "äö…"}, {"x", 0, ""}, {"xy", 1, "…"},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
