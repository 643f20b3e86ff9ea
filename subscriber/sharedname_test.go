package subscriber

import (
	"context"
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// Without labels, whoever speaks first does not own a name: once a second
// member's producer gives the plain name the first was shown by, both are
// named with their endpoints, and that is said once. A third giving it is
// told apart at once, with nothing said; a member that gives a name alone
// keeps it plain.
func TestSharedNameToldApartForBoth(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := NewGroup(GroupConfig{})
	t.Cleanup(g.Stop)
	var ms []*Member
	for i := 1; i <= 3; i++ {
		ms = append(ms, g.Join("", fmt.Sprintf("http://127.0.0.1:%d", i), agreeConfig(),
			func(cfg Config) *Client { return Start(ctx, "http://127.0.0.1:1", cfg) }))
	}
	steps := []struct {
		m          int
		name, want string
		note       bool
	}{
		{0, "Bank", "Bank", false},
		{0, "Bank", "Bank", false},
		{2, "Shop", "Shop", false},
		{1, "Bank", "Bank (127.0.0.1:2)", true},
		{0, "Bank", "Bank (127.0.0.1:1)", false},
		{1, "Bank", "Bank (127.0.0.1:2)", false},
		{2, "Bank", "Bank (127.0.0.1:3)", false},
		{2, "Shop", "Shop", false},
	}
	notes := 0
	for i, st := range steps {
		got, note := g.DisplayNote(ms[st.m], st.name)
		if got != st.want || (note != "") != st.note {
			t.Fatalf("step %d: member %d giving %q is shown as %q (note %q), want %q (note %v)", i, st.m, st.name, got, note, st.want, st.note)
		}
		if note != "" {
			notes++
			plain, _ := protocol.SplitTheirs(note)
			if want := "Two agents call themselves Bank: from now on each is named with its address, Bank (127.0.0.1:1) and Bank (127.0.0.1:2)."; plain != want {
				t.Errorf("note %q, want %q", plain, want)
			}
		}
		if d := g.Display(ms[st.m], st.name); d != got {
			t.Errorf("step %d: Display says %q, DisplayNote %q", i, d, got)
		}
	}
}
