package subscriber_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// The listener signs only for a producer that honoured the signed-replies
// extension in its acceptance: to one that did not (here, the deployed
// layout, which has no handshake) its answers go unsigned, so a signature
// it never asked for cannot be relayed elsewhere; the user is told so once,
// with the first answer. To one that honoured it, each answer is signed.
func TestSignsOnlyForAProducerThatHonoursIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		layout transport.Layout
		signed bool
	}{
		{"deployed layout, no handshake", transport.LayoutLegacy, false},
		{"spec layout, sigrpl honoured", transport.LayoutSpec, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm", "clarify"), EndWhenDone: true})
			t.Cleanup(func() { p.Close() })
			var mu sync.Mutex
			var sigs []string // the signature header of each reply POSTed
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && (r.URL.Path == protocol.PathLegacyReplies || r.URL.Path == protocol.PathReplies) {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					if !strings.HasSuffix(protocol.PeekType(body), ".reply") {
						p.ServeHTTP(w, r) // a subscription.close: nothing to sign
						return
					}
					mu.Lock()
					sigs = append(sigs, r.Header.Get(sigrpl.Header))
					mu.Unlock()
				}
				p.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			key, err := sigrpl.Generate()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cl, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: c.layout}},
				Signer:    key,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			s := &stream{t: t, c: cl, ctx: ctx}
			var words []string
			for i, answer := range []func(n int) error{
				func(n int) error { return cl.Confirm(ctx, n, protocol.DecisionReject) },
				func(n int) error { return cl.Answer(ctx, n, "1") },
			} {
				prompt := s.until(isOffered).Delivery.Prompt
				if err := answer(prompt.Number); err != nil {
					t.Fatalf("answer %d: %v", i+1, err)
				}
				r := s.until(func(u subscriber.Update) bool { return u.Kind == subscriber.KindReply })
				if r.Reply.Err != nil || r.Reply.Signed != c.signed {
					t.Errorf("answer %d: signed %v, want %v (error %v)", i+1, r.Reply.Signed, c.signed, r.Reply.Err)
				}
				words = append(words, r.Text)
			}
			cl.Close()
			s.drain()
			mu.Lock()
			defer mu.Unlock()
			for i, sig := range sigs {
				if (sig != "") != c.signed {
					t.Errorf("reply %d went with signature %q; want one: %v", i+1, sig, c.signed)
				}
			}
			if c.signed {
				return
			}
			if len(words) != 2 || !strings.Contains(words[0], "unsigned") || words[1] != "" {
				t.Errorf("the user is told %q; want the first answer to say it went unsigned, and the second nothing more", words)
			}
		})
	}
}

// Over every binding, a signed accept names the digest of the prompt event
// exactly as that binding carried it, so the producer (which never ignores a
// signature, and refuses one addressed to another prompt) takes it: the
// payment goes ahead. Where there is no handshake, the accept goes unsigned.
func TestSignedAcceptTakenOnEveryBinding(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm")})
			t.Cleanup(func() { p.Close() })
			endpoint := b.serve(t, p)
			key, err := sigrpl.Generate()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: b.layout}, GRPCBinding: grpcbind.Binding{}},
				Signer:    key,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := &stream{t: t, c: c, ctx: ctx}
			prompt := s.until(isOffered).Delivery.Prompt
			if err := c.Confirm(ctx, prompt.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			r := s.until(func(u subscriber.Update) bool { return u.Kind == subscriber.KindReply })
			if r.Reply.Signed != b.negotiates {
				t.Errorf("signed %v, want %v: %s", r.Reply.Signed, b.negotiates, r.Text)
			}
			s.until(func(u subscriber.Update) bool {
				ev := u.Delivery.Event
				return u.Kind == subscriber.KindDelivery && ev != nil && ev.Type == protocol.TypeToolInvoked && ev.Tool == "transfer_money"
			})
		})
	}
}
