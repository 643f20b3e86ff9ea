package subscriber_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// serveEnding serves a producer of opts over HTTP (httpServe); every
// stream ends once its scenarios have (EndWhenDone).
func serveEnding(t *testing.T, opts producer.Options) (*producer.Producer, string) {
	opts.EndWhenDone = true
	p := producer.New(opts)
	url := httpServe(t, p)
	t.Cleanup(func() { p.Close() }) // before the server's Close, which waits for the streams
	return p, url
}

func groupConfig() subscriber.Config {
	return subscriber.Config{Identity: session.Identity{ID: "group-test", Name: "group-test", Version: "1"},
		Terms: session.Terms{Verbosity: "normal", CanConfirm: true}}
}

// Two real producers on two bindings (Server-Sent Events and WebSocket) in
// one group: their prompts get numbers unique across the two, and an answer
// given by number alone reaches the producer that asked and no other. Once
// a member has ended, its number says who asked and that it ended, even
// after the member is forgotten (KeepEnded 1: only the last ended listed).
func TestGroupAnswersReachTheMemberThatAsked(t *testing.T) {
	pa, urlA := serveEnding(t, producer.Options{Scenarios: loadScenarios(t, "confirm")})
	pb, urlB := serveEnding(t, producer.Options{Scenarios: loadScenarios(t, "confirm")})
	wsB := "ws" + strings.TrimPrefix(urlB, "http") + "/aaep/v1/ws"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := subscriber.NewGroup(subscriber.GroupConfig{Expected: 2, KeepEnded: 1})
	defer g.Stop()
	bank := g.Add(ctx, "bank", urlA, groupConfig())
	shop := g.Add(ctx, "shop", wsB, groupConfig())
	asked := map[*subscriber.Member]int{}
	for g.Live() > 0 {
		b, err := g.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range b.Updates {
			if u.Kind != subscriber.KindDelivery || u.Delivery.Prompt == nil || u.Delivery.Prompt.State != session.PromptPending {
				continue
			}
			n := u.Delivery.Prompt.Number
			if _, ok := asked[b.Member]; ok {
				continue
			}
			asked[b.Member] = n
			if g.Owner(n) != b.Member {
				t.Fatalf("prompt %d owned by %v, asked by %s", n, g.Owner(n), b.Member.Tag())
			}
			decision := protocol.DecisionAccept
			if b.Member == shop {
				decision = protocol.DecisionReject
			}
			if err := g.Confirm(ctx, n, decision); err != nil {
				t.Fatalf("%s: confirm %d: %v", b.Member.Tag(), n, err)
			}
		}
	}
	if asked[bank] == 0 || asked[shop] == 0 || asked[bank] == asked[shop] {
		t.Fatalf("prompts asked: bank %d, shop %d", asked[bank], asked[shop])
	}
	if oa := pa.Outcomes(); len(oa) != 1 || oa[0].Resolution != producer.Accepted {
		t.Errorf("bank's producer: %+v, want accepted", oa)
	}
	if ob := pb.Outcomes(); len(ob) != 1 || ob[0].Resolution != producer.Rejected {
		t.Errorf("shop's producer: %+v, want rejected", ob)
	}
	if ms := g.Members(); len(ms) != 1 {
		t.Fatalf("%d members listed, want the last ended only", len(ms))
	}
	for _, m := range []*subscriber.Member{bank, shop} {
		var ended *subscriber.EndedError
		err := g.Confirm(ctx, asked[m], protocol.DecisionAccept)
		if !errors.As(err, &ended) || ended.Member != m ||
			err.Error() != fmt.Sprintf("Prompt %d was asked by %s, which has ended: it can no longer be answered.", asked[m], m.Tag()) {
			t.Fatalf("a number of an ended member: %v", err)
		}
	}
	if err := g.Confirm(ctx, 999, protocol.DecisionAccept); !errors.Is(err, subscriber.ErrNoSuchPrompt) {
		t.Fatalf("a number nobody gave: %v", err)
	}
}

// A thousand members come and go (--local churn): the group lists the live
// ones and the last KeepEnded ended, never more, and its heap does not grow
// with the members ever seen; a later member may take a forgotten one's
// name.
func TestGroupForgetsEndedMembers(t *testing.T) {
	_, url := serveEnding(t, producer.Options{Speed: 0})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := subscriber.NewGroup(subscriber.GroupConfig{Expected: 8, KeepEnded: 4})
	defer g.Stop()
	var heap [2]uint64
	for i := range 1000 {
		m := g.Add(ctx, fmt.Sprintf("a%d", i%50), url, groupConfig())
		if m.Tag() != fmt.Sprintf("a%d", i%50) {
			t.Fatalf("member %d tagged %q: a forgotten member kept its name", i, m.Tag())
		}
		for !m.Ended() {
			if _, err := g.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(g.Members()); n > 4 {
			t.Fatalf("after %d members, %d listed, want at most 4", i+1, n)
		}
		if i == 99 || i == 999 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap[i/900] = ms.HeapAlloc
		}
	}
	if g.Added() != 1000 || g.Live() != 0 {
		t.Fatalf("added %d, live %d", g.Added(), g.Live())
	}
	if heap[1] > heap[0]+8<<20 {
		t.Fatalf("heap %d MB after 100 members, %d MB after 1000", heap[0]>>20, heap[1]>>20)
	}
	t.Logf("heap %.1f MB after 100 members, %.1f MB after 1000", float64(heap[0])/(1<<20), float64(heap[1])/(1<<20))
}

// Display is the one place that names a member from untrusted input; on
// the hot path (a name seen before, members unchanged) it allocates
// nothing, however many members there are.
func TestGroupDisplayAllocatesNothing(t *testing.T) {
	g := subscriber.NewGroup(subscriber.GroupConfig{})
	defer g.Stop()
	var ms []*subscriber.Member
	for i := range 50 {
		ms = append(ms, g.Join("", fmt.Sprintf("http://127.0.0.1:%d", 1000+i), groupConfig(), ended))
	}
	names := []string{"Demo Assistant", "ｍａｉｌ", "127.0.0.l:1001", ""}
	for i, m := range ms {
		g.Display(m, names[i%len(names)])
		<-m.Client().Done()
	}
	// AllocsPerRun counts every goroutine's, so other tests' leftovers may
	// add a few: one allocation per line would be 50 a round.
	allocs := testing.AllocsPerRun(1000, func() {
		for i, m := range ms {
			g.Display(m, names[i%len(names)])
		}
	})
	if allocs >= 1 {
		t.Fatalf("%.1f allocations per round of 50 lines, want 0", allocs)
	}
}

// ended starts a client that has ended already: Display needs members,
// not their producers.
func ended(cfg subscriber.Config) *subscriber.Client {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return subscriber.Start(ctx, "http://127.0.0.1:1", cfg)
}

// Display's decisions are kept, but not past a change of the members: a
// producer that called itself "code" before a member labelled code joined
// loses the name to it, and a name that read as nobody's reads as a new
// member's tag once that member joins.
func TestGroupDisplayDecidedAgainWhenMembersChange(t *testing.T) {
	g := subscriber.NewGroup(subscriber.GroupConfig{})
	defer g.Stop()
	a := g.Join("", "http://127.0.0.1:1", groupConfig(), ended)
	if got := g.Display(a, "code"); got != "code" {
		t.Fatalf("alone: %q", got)
	}
	if got := g.Display(a, "ｍａｉｌ"); got != "ｍａｉｌ (127.0.0.1:1)" {
		t.Fatalf("alone: %q", got)
	}
	code := g.Join("code", "unix:/run/aaep/code.sock", groupConfig(), ended)
	g.Join("mail", "unix:/run/aaep/mail.sock", groupConfig(), ended)
	for _, name := range []string{"code", "ｍａｉｌ"} {
		if got := g.Display(a, name); got != "127.0.0.1:1" {
			t.Errorf("%q after the labels came: shown as %q, want the member's tag", name, got)
		}
	}
	if got := g.Display(code, "anything"); got != "code" {
		t.Errorf("a labelled member: %q", got)
	}
	if m := g.Find("CODE"); m != code {
		t.Errorf("Find(CODE) = %v", m)
	}
}

// Whatever name a producer gives, the name shown never reads as another
// member's tag, nor holds one in brackets, nor breaks the line.
func FuzzGroupDisplayNeverForges(f *testing.F) {
	for _, s := range []string{"mail", "mail ", "ｍａｉｌ", "m\u0430il", "mail #2", "Demo (127.0.0.1:3)", "127.0.0.l:3", "x\nmail: y"} {
		f.Add(s)
	}
	cfg := groupConfig()
	cfg.Schemas, _ = protocol.NewSchemas() // once, not for every input
	f.Fuzz(func(t *testing.T, name string) {
		g := subscriber.NewGroup(subscriber.GroupConfig{})
		defer g.Stop()
		others := []*subscriber.Member{g.Join("mail", "http://127.0.0.1:1", cfg, ended)}
		m := g.Join("", "http://127.0.0.1:2", cfg, ended)
		others = append(others, g.Join("", "http://127.0.0.1:3", cfg, ended))
		for range 2 { // decided, then from the cache
			shown := g.Display(m, protocol.Name(name))
			if strings.ContainsAny(shown, "\n\r\x1b") {
				t.Fatalf("%q shown as %q", name, shown)
			}
			for _, b := range others {
				if subscriber.ReadAlike(shown, b.Tag()) || strings.Contains(shown, "("+b.Tag()+")") {
					t.Fatalf("%q shown as %q, which reads as %s", name, shown, b.Tag())
				}
			}
		}
	})
}

// A prompt its member's client has offered, whose update still waits in
// the stream (not Seen yet), is answered by number all the same: the
// number is found among the members' pending prompts, as the numbering is
// one across the group.
func TestGroupAnswersAPromptNotSeenYet(t *testing.T) {
	p, url := serveEnding(t, producer.Options{Scenarios: loadScenarios(t, "confirm")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := subscriber.NewGroup(subscriber.GroupConfig{})
	defer g.Stop()
	m := g.Join("bank", url, groupConfig(), func(cfg subscriber.Config) *subscriber.Client { return subscriber.Start(ctx, url, cfg) })
	n := 0
	for n == 0 {
		us, err := m.Client().NextBatch(ctx, 0) // taken, never told to Seen
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Prompt.State == session.PromptPending {
				n = u.Delivery.Prompt.Number
			}
		}
	}
	if err := g.Confirm(ctx, n, protocol.DecisionAccept); err != nil {
		t.Fatalf("confirm %d: %v", n, err)
	}
	for {
		if _, err := m.Client().NextBatch(ctx, 0); err != nil {
			break
		}
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != producer.Accepted {
		t.Fatalf("outcomes %+v, want accepted", o)
	}
}

// An answer bound to what was shown reaches nothing else: a bare answer to
// a prompt the group has not handed out (not Seen), an answer naming
// another producer, other words, or the other kind of prompt, are refused
// with their reasons, and nothing is sent; the same prompt, named by
// number, is answered.
func TestGroupReplyBoundToWhatWasShown(t *testing.T) {
	p, url := serveEnding(t, producer.Options{Scenarios: loadScenarios(t, "confirm")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := subscriber.NewGroup(subscriber.GroupConfig{})
	defer g.Stop()
	m := g.Join("bank", url, groupConfig(), func(cfg subscriber.Config) *subscriber.Client { return subscriber.Start(ctx, url, cfg) })
	var asked *session.Prompt
	for asked == nil {
		us, err := m.Client().NextBatch(ctx, 0) // taken, never told to Seen
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Prompt.State == session.PromptPending {
				asked = u.Delivery.Prompt
			}
		}
	}
	shown := subscriber.ShownOf(asked, time.Now().Add(-time.Hour))
	other := func(f func(*subscriber.Shown)) subscriber.Shown { s := shown; f(&s); return s }
	for _, tc := range []struct {
		name string
		a    subscriber.Answer
		want error
	}{
		{"bare, never handed out", subscriber.Answer{To: shown, Bare: true, Decision: protocol.DecisionAccept}, subscriber.ErrTooSoon},
		{"another producer", subscriber.Answer{To: other(func(s *subscriber.Shown) { s.Agent = "payments" }), Decision: protocol.DecisionAccept}, subscriber.ErrNotShown},
		{"other words", subscriber.Answer{To: other(func(s *subscriber.Shown) { s.Words = "0123" }), Decision: protocol.DecisionAccept}, subscriber.ErrNotShown},
		{"a question's answer", subscriber.Answer{To: other(func(s *subscriber.Shown) { s.Kind = session.AsksQuestion }), Text: "yes"}, subscriber.ErrWrongKind},
	} {
		if err := g.Reply(ctx, tc.a); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := g.Reply(ctx, subscriber.Answer{To: shown, Decision: protocol.DecisionAccept}); err != nil {
		t.Fatalf("named by number: %v", err)
	}
	for {
		if _, err := m.Client().NextBatch(ctx, 0); err != nil {
			break
		}
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != producer.Accepted {
		t.Fatalf("outcomes %+v, want one accept", o)
	}
}
