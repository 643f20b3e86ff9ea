package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// This file puts a scripted ACP agent among the agents of
// TestNoAcceptWithoutConsent: its permission requests wait beside the AAEP
// agents' prompts, are answered by the same random typing, and the agent
// must get its allow_once option only for a request whose accept the
// property allowed, never its allow_always.

// acpLabel is the scripted ACP agent's label in the property test.
const acpLabel = "coder"

// watchedConn is an agent's connection that tells each time its client's
// reader comes back for the next frame (every frame before is then in the
// client's inbox), and keeps what the client sends.
type watchedConn struct {
	transport.Conn
	back chan struct{}
	mu   sync.Mutex
	sent [][]byte
}

func (c *watchedConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case c.back <- struct{}{}:
	default:
	}
	return c.Conn.Recv(ctx)
}

func (c *watchedConn) Send(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	c.sent = append(c.sent, append([]byte(nil), msg...))
	c.mu.Unlock()
	return c.Conn.Send(ctx, msg)
}

func (c *watchedConn) replies() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.sent...)
}

// acpConsent is the scripted ACP agent of one run of the property test,
// behind a bridge the listener made (an acp: endpoint), in dir.
type acpConsent struct {
	r    *gateRig
	c    *subscriber.Client
	conn *watchedConn
	dir  string
}

var acpRequest = regexp.MustCompile(`#(\d+)`)

// joinACP starts the scripted agent playing the consent script for seed
// (permission requests only, all at once) as one more agent of r, and
// waits until every request of it is waiting for the user or was answered
// by the listener itself (a policy rule, --auto-reply).
func joinACP(t *testing.T, r *gateRig, seed uint64) *acpConsent {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := &acpConsent{r: r, dir: t.TempDir()}
	endpoint := "acp:/usr/bin/env '" + acptest.Env + "=" + acptest.ConsentAsksScript(seed) + "' '" + exe + "' -test.run=^$"
	argv, err := transport.SplitCommand(strings.TrimPrefix(endpoint, "acp:"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := r.l.Join(agentSpec{Label: acpLabel, Endpoint: endpoint, ACPDir: a.dir, ACPTask: "go"}, func(cfg subscriber.Config) *subscriber.Client {
		conn, err := cfg.Transport.ACP(ctx, argv, transport.LinkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a.conn = &watchedConn{Conn: conn, back: make(chan struct{}, 1)}
		return subscriber.New(ctx, a.conn, endpoint, cfg)
	})
	a.c = m.Client()
	t.Cleanup(func() { cancel(); <-a.c.Done() })
	a.wait(t, "every request waiting or answered", func() bool { return len(a.c.Pending())+len(a.tokens()) == acptest.ConsentAsks })
	return a
}

// wait lets the agent's client handle what came and the listener tell it,
// until ok holds; the test's deadline is the only time limit.
func (a *acpConsent) wait(t *testing.T, what string, ok func() bool) {
	t.Helper()
	guard := acptest.Guard(t)
	defer guard.Stop()
	for {
		if err := a.c.Sync(context.Background()); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		a.r.l.drain()
		if ok() {
			return
		}
		select {
		case <-a.conn.back:
		case <-a.c.Done():
			t.Fatalf("the ACP agent ended before %s:\n%s", what, a.r.out.all())
		case <-guard.C:
			acptest.Stuck(t, "never %s:\n%s", what, a.r.out.all())
		}
	}
}

// replies are the answers the listener sent the agent; none without one.
func (a *acpConsent) replies() [][]byte {
	if a == nil {
		return nil
	}
	return a.conn.replies()
}

// tokens are the reply tokens the listener sent answers under.
func (a *acpConsent) tokens() map[string]bool {
	toks := map[string]bool{}
	for _, msg := range a.replies() {
		var m struct {
			Token string `json:"reply_token"`
		}
		if json.Unmarshal(msg, &m) == nil && m.Token != "" {
			toks[m.Token] = true
		}
	}
	return toks
}

// answered reports whether the listener sent an answer under token.
func (a *acpConsent) answered(token string) bool { return a.tokens()[token] }

// finish cancels the agent's task, which answers every request still
// waiting "cancelled", waits for the agent's record of all its requests,
// and checks it: the agent got allow_once only for a request whose accept
// the property test let through (consented), never allow_always, and
// every such accept reached it as allow_once where it offered one.
func (a *acpConsent) finish(t *testing.T, consented map[string]*session.Prompt, trace func() string) {
	t.Helper()
	if a == nil {
		return
	}
	a.r.command("cancel " + acpLabel)
	records := func() []string {
		b, _ := os.ReadFile(filepath.Join(a.dir, acptest.ConsentFile))
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	a.wait(t, "the agent's record of every request", func() bool { return len(records()) == acptest.ConsentAsks })
	accepted := map[int]bool{}
	mine := a.tokens()
	for tok, p := range consented {
		if !mine[tok] {
			continue // an AAEP agent's
		}
		m := acpRequest.FindStringSubmatch(string(p.Event.Raw))
		if m == nil {
			t.Fatalf("prompt %d names no request of the agent: %s", p.Number, p.Event.Raw)
		}
		n, _ := strconv.Atoi(m[1])
		accepted[n] = true
	}
	sc := bufio.NewScanner(strings.NewReader(strings.Join(records(), "\n")))
	for sc.Scan() {
		var rec struct {
			N       int                 `json:"n"`
			Options []map[string]string `json:"options"`
			Result  struct {
				Outcome struct {
					Outcome  string `json:"outcome"`
					OptionID string `json:"optionId"`
				} `json:"outcome"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		got, offered := "cancelled", false
		for _, o := range rec.Options {
			if rec.Result.Outcome.Outcome == "selected" && o["optionId"] == rec.Result.Outcome.OptionID {
				got = o["kind"]
			}
			offered = offered || o["kind"] == "allow_once"
		}
		switch {
		case got == "allow_always":
			t.Errorf("request #%d: the agent got its allow_always option\n%s", rec.N, trace())
		case got == "allow_once" && !accepted[rec.N]:
			t.Errorf("request #%d: the agent got allow_once without consent\n%s", rec.N, trace())
		case got != "allow_once" && accepted[rec.N] && offered:
			t.Errorf("request #%d: accepted, the agent got %s\n%s", rec.N, got, trace())
		}
	}
}

// pendingWith is every prompt waiting: the AAEP agents', then the ACP
// agent's.
func pendingWith(r *gateRig, a *acpConsent) []*session.Prompt {
	ps := r.l.c.Pending()
	if a != nil {
		ps = append(ps, a.c.Pending()...)
	}
	return ps
}
