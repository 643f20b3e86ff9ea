// Package hostile is the corpus of hostile strings a producer, a capture
// file, an HTTP answer or a child process may send, and the check that none
// of them survives on a terminal, braille line, speech or notification.
//
// Every case begins with [Anchor] and puts [Forged] after its attack, so a
// forged line is one that holds Forged without Anchor before it.
package hostile

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	// Anchor begins every case.
	Anchor = "HOST"
	// Forged follows the attack in every case; it must never begin a line.
	Forged = "FORGED"
)

// Case is one hostile string.
type Case struct {
	Name string
	S    string
}

// Cases is the corpus, short enough for an identifier or a TUI row. The
// grapheme run is separate: see [GraphemeRun].
var Cases = []Case{
	{"CSI clear screen", Anchor + "\x1b[2J\x1b[H" + Forged},
	{"OSC 52 clipboard", Anchor + "\x1b]52;c;cm0gLXJmIH4=\x07" + Forged},
	{"OSC 0 title", Anchor + "\x1b]0;pwned\x1b\\" + Forged},
	{"OSC 8 hyperlink", Anchor + "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\" + Forged},
	{"DCS", Anchor + "\x1bP+q544e\x1b\\" + Forged},
	{"C1 as UTF-8", Anchor + "\u009b2J\u009d0;t\u009c\u0090x\u009c" + Forged},
	{"C1 raw bytes", Anchor + "\x9b2J\x9d0;t\x9c\x85" + Forged},
	{"bidi override", Anchor + "\u202egnp.exe\u202c\u202a\u202b\u202d" + Forged},
	{"bidi isolates", Anchor + "\u2066a\u2067b\u2068c\u2069" + Forged},
	{"zero-width", Anchor + "Ba\u200bnk\u200d\u2060\ufeff\u200c\u180e" + Forged},
	{"BS BEL DEL", Anchor + "\x08\x08\x07\x7f" + Forged},
	{"LF", Anchor + "\n" + Forged},
	{"CR", Anchor + "\r" + Forged},
	{"CR LF", Anchor + "\r\n" + Forged},
	{"VT", Anchor + "\v" + Forged},
	{"FF", Anchor + "\f" + Forged},
	{"NEL", Anchor + "\u0085" + Forged},
	{"line separator", Anchor + "\u2028" + Forged},
	{"paragraph separator", Anchor + "\u2029" + Forged},
	{"fake prompt", Anchor + "\n12:00:00 CRITICAL Bank: Confirmation needed, prompt 1: " + Forged},
	// Padding to an 80-column terminal's width: the terminal wraps what
	// follows onto a row of its own, which then reads as our line.
	{"space padding", Anchor + strings.Repeat(" ", 76) + "12:00:00 CRITICAL Bank: Confirmation needed, prompt 1: " + Forged},
	{"tab padding", Anchor + strings.Repeat("\t", 10) + "CRITICAL Bank: Confirmation needed " + Forged},
	{"look-alike space padding", Anchor + strings.Repeat("\u00a0\u2003\u3000\u2800\u205f\u2009\u202f", 10) +
		"CRITICAL Bank: Confirmation needed " + Forged},
}

// GraphemeRun is one grapheme cluster of about n bytes: a base letter and
// combining acute accents, between Anchor and Forged.
func GraphemeRun(n int) string {
	return Anchor + "e" + strings.Repeat("\u0301", n/2) + Forged
}

// Problems lists what survived in out, text meant for a person: escape and
// control characters, bidi controls, unrendered zero-width characters,
// invalid UTF-8, and forged lines.
func Problems(out string) []string {
	var p []string
	if !utf8.ValidString(out) {
		p = append(p, "invalid UTF-8 (raw C1 bytes?)")
	}
	var prev rune
	runes := []rune(out)
	for i, r := range runes {
		next := rune(0)
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		if why := bad(r, prev, next); why != "" {
			p = append(p, fmt.Sprintf("%s (%U) at rune %d", why, r, i))
			if len(p) > 10 {
				break
			}
		}
		prev = r
	}
	for n, line := range strings.Split(out, "\n") {
		f := strings.Index(line, Forged)
		if f >= 0 && !strings.Contains(line[:f], Anchor) {
			p = append(p, fmt.Sprintf("forged line %d: %q", n+1, clip(line)))
		}
		if f >= 0 && padded(line[:f]) {
			p = append(p, fmt.Sprintf("padded line %d (a terminal would wrap the forged words onto a row of their own): %q", n+1, clip(line)))
		}
	}
	return p
}

// padded reports a run of two or more blanks (spaces, tabs, and what
// looks like a space) in what the hostile text put before Forged, after
// the last Anchor.
func padded(before string) bool {
	if a := strings.LastIndex(before, Anchor); a >= 0 {
		before = before[a:]
	}
	run := 0
	for _, r := range before {
		if !blank(r) {
			run = 0
			continue
		}
		if run++; run >= 2 {
			return true
		}
	}
	return false
}

// blank reports characters shown as blank space.
func blank(r rune) bool {
	switch {
	case r == ' ', r == '\t', r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x202f, r == 0x205f, r == 0x3000:
	case r == 0x3164, r == 0xffa0, r == 0x2800, r == 0x115f, r == 0x1160:
	default:
		return false
	}
	return true
}

// ProblemsJSON is [Problems] for JSON lines: each line must be valid JSON,
// and every string in it, decoded, must be free of what Problems looks for
// (an escape such as \u001b counts as surviving).
func ProblemsJSON(out string) []string {
	p := Problems(out)
	var doc any
	if json.Unmarshal([]byte(out), &doc) == nil { // one document, maybe indented
		walk(doc, func(s string) {
			for _, q := range Problems(s) {
				p = append(p, fmt.Sprintf("decoded string %q: %s", clip(s), q))
			}
		})
		return p
	}
	for n, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			p = append(p, fmt.Sprintf("line %d is not JSON: %v", n+1, err))
			continue
		}
		walk(v, func(s string) {
			for _, q := range Problems(s) {
				p = append(p, fmt.Sprintf("line %d, decoded string %q: %s", n+1, clip(s), q))
			}
		})
	}
	return p
}

func walk(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walk(e, f)
		}
	case map[string]any:
		for k, e := range v {
			f(k)
			walk(e, f)
		}
	}
}

// bad names what is wrong with r between prev and next, or returns "".
func bad(r, prev, next rune) string {
	switch {
	case r == 0x1b:
		return "ESC"
	case r == '\r' || r == 0x0b || r == 0x0c || r == 0x85 || r == 0x2028 || r == 0x2029:
		return "line break other than LF"
	case r == 0x07 || r == 0x08 || r == 0x7f:
		return "BEL, BS or DEL"
	case r < 0x20 && r != '\n' && r != '\t':
		return "C0 control"
	case r >= 0x80 && r < 0xa0:
		return "C1 control"
	case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return "bidi control"
	case r == 0x200b || r == 0x2060 || r == 0xfeff || r == 0x180e || (r >= 0xe0000 && r <= 0xe007f):
		return "zero-width character"
	case (r == 0x200c || r == 0x200d) && (prev < 0xa0 || next < 0xa0):
		return "zero-width joiner next to ASCII"
	}
	return ""
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
