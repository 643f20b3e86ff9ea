package console

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"

	"github.com/aaep-term/aaep-term/protocol"
)

// Whatever name a producer gives its agent, the name its lines show never
// reads as another agent's tag, nor holds one in brackets, nor breaks the
// line.
func FuzzAttack14DisplayNeverForges(f *testing.F) {
	for _, s := range []string{"mail", "mail ", "ｍａｉｌ", "m\u0430il", "mail #2", "Demo (127.0.0.1:3)", "127.0.0.l:3", "x\nmail: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		r := newRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3")
		shown := r.group.Display(r.agents()[1].Member, protocol.Name(name))
		if strings.ContainsAny(shown, "\n\r\x1b") {
			t.Fatalf("%q shown as %q", name, shown)
		}
		for _, b := range []*agent{r.agents()[0], r.agents()[2]} {
			if subscriber.ReadAlike(shown, b.Tag()) || strings.Contains(shown, "("+b.Tag()+")") {
				t.Fatalf("%q shown as %q, which reads as %s", name, shown, b.Tag())
			}
		}
	})
}
