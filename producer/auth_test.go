package producer

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// get GETs url with the Authorization header auth (none if empty) and
// returns the status; the body is left unread.
func get(t *testing.T, url, auth string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A producer with a token asks it on its event streams as on its reply
// endpoints, on every binding; only the manifest is public.
func TestTokenGuardsStreamsAndReplies(t *testing.T) {
	t.Parallel()
	const token = "s3cret"
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true, Token: token})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := p.GRPCServer()
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)

	for _, auth := range []string{"", "Bearer wrong", "Basic " + token, "Bearer " + token + "x"} {
		for _, c := range []struct{ method, path string }{
			{http.MethodGet, protocol.PathLegacyEvents},
			{http.MethodGet, protocol.PathEvents + "?subscription_id=sub_1"},
			{http.MethodGet, protocol.PathWebSocket},
			{http.MethodPost, protocol.PathSubscriptions},
			{http.MethodPost, protocol.PathLegacyReplies},
			{http.MethodPost, protocol.PathReplies},
		} {
			var code int
			if c.method == http.MethodGet {
				code = get(t, srv.URL+c.path, auth)
			} else {
				req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(`{}`))
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				code = resp.StatusCode
			}
			if code != http.StatusUnauthorized {
				t.Errorf("%s %s with %q: %d, want 401", c.method, c.path, auth, code)
			}
		}
	}
	if code := get(t, srv.URL+protocol.PathManifest, ""); code == http.StatusUnauthorized {
		t.Errorf("the manifest asks for the token")
	}

	req := []byte(`{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":{"supports_confirmation_reply":true}}`)
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + protocol.PathWebSocket
	grpc := "grpc://" + ln.Addr().String()
	for _, c := range []struct {
		name, endpoint string
		layout         transport.Layout
	}{
		{"deployed layout", srv.URL, transport.LayoutLegacy},
		{"spec layout", srv.URL, transport.LayoutSpec},
		{"WebSocket", ws, transport.LayoutAuto},
		{"gRPC", grpc, transport.LayoutAuto},
	} {
		for _, tok := range []string{"", token} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			conn, err := transport.Dial(ctx, c.endpoint, transport.Options{SSE: transport.SSEOptions{
				Layout: c.layout, SubscriptionRequest: req, Token: tok}, GRPCBinding: grpcbind.Binding{}})
			var got bool
			if err == nil {
				for {
					f, rerr := conn.Recv(ctx)
					if rerr != nil {
						err = rerr
						break
					}
					if f.Event != transport.EventHandshake && protocol.PeekType(f.Data) != "" {
						got = true
						break
					}
				}
				conn.Close()
			}
			cancel()
			switch {
			case tok == "" && got:
				t.Errorf("%s: an event was streamed without the token", c.name)
			case tok != "" && !got:
				t.Errorf("%s: nothing streamed with the token: %v", c.name, err)
			}
		}
	}
}

// A producer that takes only signed replies streams its events (and their
// reply tokens) only to a subscription that offered a key: the deployed
// layout's stream, which has no handshake, is refused as an unsigned reply
// is (TestSignedAcceptRelayedToAnotherProducer read the tokens there).
func TestSignedOnlyRefusesTheDeployedStream(t *testing.T) {
	t.Parallel()
	k := sigKey(t)
	for _, o := range []Options{{PinnedKeys: []string{k.KID()}}, {RequireSignedReplies: true}} {
		o.Scenarios, o.EndWhenDone = scenarios(t, "confirm"), true
		_, srv := serve(t, o)
		if code := get(t, srv.URL+protocol.PathLegacyEvents, ""); code != http.StatusUnauthorized {
			t.Errorf("pinned %v, required %v: GET %s answered %d, want 401", o.PinnedKeys, o.RequireSignedReplies, protocol.PathLegacyEvents, code)
		}
		if code, acc, s := subscribeSigned(t, srv, k); code != http.StatusCreated {
			t.Errorf("a subscription offering the key: %d %v", code, acc)
		} else {
			s.until(t, protocol.TypeAwaitingConfirmation)
		}
	}
}
