package subscriber

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// forgesSlow is forges as it was decided before the tags were indexed:
// the name against each other member's tag in turn. forges must agree.
func forgesSlow(g *Group, m *Member, name string) bool {
	n := lookAlike(name)
	bracketed := strings.ContainsAny(norm.NFKC.String(name), "()[]{}<>")
	for _, b := range g.members {
		if b == m {
			continue
		}
		t := lookAlike(b.tag)
		if strings.EqualFold(name, b.tag) || strings.Contains(name, "("+b.tag+")") || n == t ||
			strings.HasPrefix(n, t) && strings.Trim(n[len(t):], "0123456789") == "" && t != "" ||
			bracketed && t != "" && strings.Contains(n, t) {
			return true
		}
	}
	return false
}

// agreeGroup is a group whose members' tags are labels, endpoints and
// look-alikes of one another, some of them gone again.
func agreeGroup(t testing.TB, cfg Config, labels ...string) *Group {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := NewGroup(GroupConfig{KeepEnded: 1})
	t.Cleanup(g.Stop)
	for i, l := range labels {
		m := g.Join(l, fmt.Sprintf("http://127.0.0.1:%d/p", i%3), cfg, func(cfg Config) *Client { return Start(ctx, "http://127.0.0.1:1", cfg) })
		if i%4 == 3 { // ended: the last ended stays, the others are forgotten
			g.Seen(m, &Update{Kind: KindEnd})
		}
	}
	return g
}

// agreeConfig is the members' configuration, schemas compiled.
func agreeConfig() Config {
	cfg := Config{Identity: session.Identity{ID: "t", Name: "t", Version: "1"}}
	cfg.Schemas, _ = protocol.NewSchemas()
	return cfg
}

var agreeLabels = []string{"mail", "MAIL", "code", "", "", "Ｃｏｄｅ", "mail #2", "0ops", "K", "\u212a", "ſs", "()", "a(b)c", "rn", "", "x", "Ϊ", "ΐ"}

// The property forges relies on: looking a name up among the members'
// tags, in their three forms, decides exactly as comparing it with each
// member's tag in turn, for every member, after members joined, were told
// apart, ended and were forgotten.
func TestForgesAgreesWithEachMember(t *testing.T) {
	g := agreeGroup(t, agreeConfig(), agreeLabels...)
	names := []string{"", "mail", "Mail", "ｍａｉｌ", "m a i l", "mail2", "mail 2", "mail #3", "mai1", "code (127.0.0.1:1/p)", "Demo (mail)",
		"[mail]", "x (code)", "127.0.0.1:1/p", "127.0.0.l:2/p", "Research Assistant", "k", "KELVIN", "\u212a", "ss", "SS", "ſS", "(())", "()",
		"a(b)c", "(a(b)c)", "m", "rnail", "ox", "X", "x7", "ϊ", "ΐ (x)", "0", "o", "(", "<x>", "#"}
	for _, m := range g.members {
		for _, name := range names {
			if got, want := g.forges(m, name), forgesSlow(g, m, name); got != want {
				t.Errorf("member %q, name %q: forges %v, member by member %v", m.tag, name, got, want)
			}
		}
	}
}

// FuzzForgesAgrees: for any name and labels, forges and forgesSlow agree.
func FuzzForgesAgrees(f *testing.F) {
	f.Add("mail (code)", "code", "MAIL", "x")
	f.Add("ｍａｉｌ3", "mail", "", "mail")
	f.Add("\u212a", "k", "K", "")
	cfg := agreeConfig()
	f.Fuzz(func(t *testing.T, name, l1, l2, l3 string) {
		g := agreeGroup(t, cfg, append([]string{protocol.Name(l1), protocol.Name(l2), protocol.Name(l3)}, agreeLabels[:6]...)...)
		name = protocol.Name(name)
		for _, m := range g.members {
			if got, want := g.forges(m, name), forgesSlow(g, m, name); got != want {
				t.Fatalf("member %q, name %q: forges %v, member by member %v", m.tag, name, got, want)
			}
		}
	})
}

// foldKey tells strings apart exactly as strings.EqualFold does.
func FuzzFoldKey(f *testing.F) {
	for _, p := range [][2]string{{"mail", "MAIL"}, {"k", "\u212a"}, {"ſ", "S"}, {"\xff", "\xfe"}, {"ß", "SS"}, {"Σ", "ς"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := foldKey(a) == foldKey(b), strings.EqualFold(a, b); got != want {
			t.Fatalf("%q, %q: same key %v, EqualFold %v", a, b, got, want)
		}
	})
}
