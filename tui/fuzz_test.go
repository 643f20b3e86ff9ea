package tui

import (
	"strings"
	"testing"
)

// A filter that parses reads back the same from its String, and a term and
// its negation never agree on an event.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"type:tool.*", "-tool:read_*", "urgency:critical,normal session:s-1", "kind:diagnostic gap",
		"type:[", "session:", "-", "urgency:loud", "TYPE:Agent.*", "a:b:c", "type:aaep:agent.progress.updated", "日本 -x", "agent:mail", "-agent:we*"} {
		f.Add(s, "event-001")
	}
	items := testItems(12)
	f.Fuzz(func(t *testing.T, expr, text string) {
		flt, err := ParseFilter(expr)
		if err != nil {
			return
		}
		again, err := ParseFilter(flt.String())
		if err != nil || again.String() != flt.String() || len(again.terms) != len(flt.terms) {
			t.Fatalf("%q reads back as %q, %v", flt.String(), again.String(), err)
		}
		it := items[len(text)%len(items)]
		it.Text = text
		e := newEntry(it, 1)
		flt.match(&e)
		if len(flt.terms) != 1 || strings.HasPrefix(strings.TrimSpace(expr), "-") {
			return
		}
		neg, err := ParseFilter("-" + strings.TrimSpace(expr))
		if err != nil {
			t.Fatalf("%q parses, its negation does not: %v", expr, err)
		}
		if flt.match(&e) == neg.match(&e) {
			t.Errorf("%q and its negation agree on %q", expr, e.hay)
		}
	})
}

// Whatever a key file holds, remapping never panics; when it is accepted,
// every action still has a key.
func FuzzRemap(f *testing.F) {
	f.Add("pause = space F\nquit = ctrl+q\n")
	f.Add("# comment\n\nrenegotiate = R ctrl+r\n")
	f.Add("jump = j")
	f.Add("pause =")
	f.Add("=\n= =\n")
	f.Fuzz(func(t *testing.T, file string) {
		k := DefaultKeyMap()
		err := k.Remap(strings.NewReader(file))
		if err != nil {
			if !strings.Contains(err.Error(), "line") {
				t.Errorf("error names no line: %v", err)
			}
			return
		}
		for name, b := range k.named() {
			if len(b.Keys()) == 0 || b.Help().Key == "" {
				t.Errorf("action %s lost its keys: %q", name, b.Keys())
			}
		}
	})
}
