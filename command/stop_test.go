package command

import "testing"

func TestParseStop(t *testing.T) {
	for _, s := range []string{"stop", "Silence", " hush "} {
		if c := Parse(s); c.Verb != VerbStop || c.Verb.String() != "stop" {
			t.Errorf("Parse(%q) = %+v, want stop", s, c)
		}
	}
	if c := Parse("stop the transfer"); c.Verb != VerbText {
		t.Errorf("a sentence starting with stop is text: %+v", c)
	}
}
