package producer

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// An idle stream carries keep-alive comments (issue 24 item 17), so that a
// subscriber that drops a silent stream (30 s in the reference NVDA add-on)
// keeps it while a prompt waits. Before, only Quirks mode sent any.
func TestIdleStreamKeepsAlive(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), PromptTimeout: time.Minute, KeepAlive: time.Millisecond})
	_, s := subscribe(t, srv, nil)
	s.until(t, protocol.TypeAwaitingConfirmation) // from now on it waits
	for ev := range s.events {
		if ev.comment == " keep-alive" {
			return
		}
	}
	t.Fatal("the stream ended without a keep-alive comment")
}

// With JoinLive (serve --demo), a subscription that comes while the run
// plays is sent what follows and the prompt still waiting, never a prompt
// settled before it came (issue 24 item 17): before, every new stream got
// the whole run again, the settled confirmation asked anew.
func TestJoinLiveSkipsSettledPrompts(t *testing.T) {
	t.Parallel()
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm", "confirm"), JoinLive: true, EndWhenDone: true, PromptTimeout: time.Minute})
	sub, first := subscribe(t, srv, nil)
	ask := first.until(t, protocol.TypeAwaitingConfirmation)
	token, _ := ask[len(ask)-1].decoded(t)["reply_token"].(string)

	// Joining while the first prompt waits: it is the first thing sent.
	_, waiting := subscribe(t, srv, nil)
	if ev := waiting.next(t); ev.typ(t) != protocol.TypeAwaitingConfirmation || ev.decoded(t)["reply_token"] != token {
		t.Fatalf("a subscription joining while the prompt waits got %s first, not the prompt", ev.data)
	}
	if code, _, body := post(t, srv.URL+protocol.PathReplies, confirmation(token, "accept", sub)); code != http.StatusAccepted {
		t.Fatalf("reply: %d %s", code, body)
	}
	for len(p.Outcomes()) == 0 {
		first.next(t) // the scenario goes on once the reply is taken
	}

	// Joining after it was settled: never asked again.
	_, late := subscribe(t, srv, nil)
	for {
		ev := late.next(t)
		if m := ev.decoded(t); m["reply_token"] == token {
			t.Fatalf("the settled prompt was asked again: %s", ev.data)
		} else if m["type"] == protocol.TypeAwaitingConfirmation {
			return // the second scenario's own prompt
		}
	}
}

// CORS (issue 24 item 17): a preflight from an allowed page is answered
// 204 with what it asks; a page of another origin is refused any POST, a
// page let in by AnyOrigin only its unsigned replies.
func TestCORS(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), PromptTimeout: time.Minute,
		AllowOrigins: []string{"http://named.example", AnyOrigin}})
	do := func(method, path, origin string, h ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(`{"type":"confirmation.reply","reply_token":"rpl_x","decision":"accept","timestamp":"2026-01-01T00:00:00Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	pre := do(http.MethodOptions, protocol.PathLegacyReplies, "http://named.example",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	if pre.StatusCode != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "http://named.example" ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!slices.Contains(strings.Split(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), ", "), "content-type") {
		t.Errorf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://named.example", http.StatusNotFound}, // taken, and refused for its made-up token
		{"http://any.example", http.StatusForbidden},  // unsigned, from any page
	} {
		if got := do(http.MethodPost, protocol.PathLegacyReplies, tc.origin).StatusCode; got != tc.want {
			t.Errorf("reply from %s: %d, want %d", tc.origin, got, tc.want)
		}
	}

	_, closed := serve(t, Options{Scenarios: scenarios(t, "confirm")})
	srv = closed
	if resp := do(http.MethodPost, protocol.PathSubscriptions, "http://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a subscription from a page not let in: %d, want 403", resp.StatusCode)
	}
	if resp := do(http.MethodOptions, protocol.PathLegacyReplies, "http://evil.example", "Access-Control-Request-Method", "POST"); resp.StatusCode != http.StatusForbidden ||
		resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight from a page not let in: %d %v", resp.StatusCode, resp.Header)
	}
}
