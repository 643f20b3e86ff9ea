package subscriber

import (
	"testing"

	"github.com/aaep-term/aaep-term/session"
)

// The table of who numbered each prompt stays bounded however long the
// run, also when numbers are skipped (numbered by a client but never
// offered to the user, so never Seen), and still names recent owners.
func TestGroupOwnersBounded(t *testing.T) {
	g := NewGroup(GroupConfig{})
	m := &Member{g: g, tag: "mail"}
	for n := 1; n <= 5*maxOwners; n += 3 {
		g.Seen(m, &Update{Kind: KindDelivery, Delivery: session.Delivery{Prompt: &session.Prompt{Number: n}}})
		if len(g.owners) > maxOwners {
			t.Fatalf("after prompt %d the owner table holds %d numbers, want at most %d", n, len(g.owners), maxOwners)
		}
	}
	last := 1 + (5*maxOwners-1)/3*3
	for n := last; n > last-maxOwners; n -= 3 {
		if g.Owner(n) != m {
			t.Fatalf("recent prompt %d (the last is %d) no longer names its member", n, last)
		}
	}
	if g.Owner(1) != nil {
		t.Fatal("prompt 1 is still remembered")
	}
}
