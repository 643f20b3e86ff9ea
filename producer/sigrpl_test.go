package producer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/gorilla/websocket"
)

func sigKey(t *testing.T) *sigrpl.Key {
	t.Helper()
	k, err := sigrpl.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// subscribeSigned subscribes offering k (if not nil) and returns the
// status, the answer, the subscription and its stream (nil when refused).
func subscribeSigned(t *testing.T, srv *httptest.Server, k *sigrpl.Key) (int, map[string]any, *stream) {
	t.Helper()
	req := map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "test",
		"capabilities": map[string]any{"supports_confirmation_reply": true, "sigrpl": map[string]any{"required": false}},
	}
	if k != nil {
		o, err := k.Offer()
		if err != nil {
			t.Fatal(err)
		}
		req["extensions"] = map[string]any{"sigrpl": o}
	}
	code, h, body := post(t, srv.URL+protocol.PathSubscriptions, req)
	var acc map[string]any
	if err := json.Unmarshal(body, &acc); err != nil {
		t.Fatalf("%d %s", code, body)
	}
	if code != http.StatusCreated {
		return code, acc, nil
	}
	return code, acc, open(t, srv.URL+h.Get("Location"), "")
}

// postSigned posts body with the signature header sig (none if empty).
func postSigned(t *testing.T, url string, body []byte, sig string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(sigrpl.Header, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

func replyBody(t *testing.T, token, decision, sub string) []byte {
	t.Helper()
	b, err := json.Marshal(confirmation(token, decision, sub))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// audienceOf is the audience a signed reply to prompt (as the stream
// carried it) on the subscription acc accepted names.
func audienceOf(acc map[string]any, prompt sseEvent) sigrpl.Audience {
	id, _ := acc["subscription_id"].(string)
	agent, _ := acc["producer"].(map[string]any)["agent_id"].(string)
	return sigrpl.Audience{Producer: agent, Subscription: id, Prompt: sigrpl.PromptDigest([]byte(prompt.data))}
}

// unsignedHeader builds a detached JWS with the given header and signature.
func unsignedHeader(hdr map[string]any, sig string) string {
	h, _ := json.Marshal(hdr)
	return base64.RawURLEncoding.EncodeToString(h) + ".." + sig
}

func TestSignedReplyHTTP(t *testing.T) {
	k, other := sigKey(t), sigKey(t)
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true})
	code, acc, s := subscribeSigned(t, srv, k)
	if code != http.StatusCreated {
		t.Fatalf("subscribe: %d %v", code, acc)
	}
	honored, _ := acc["honored_capabilities"].(map[string]any)["sigrpl"].(map[string]any)
	if honored["kid"] != k.KID() {
		t.Fatalf("honored sigrpl %v, want kid %s", honored, k.KID())
	}
	sub := acc["subscription_id"].(string)
	prompt := s.until(t, protocol.TypeAwaitingConfirmation)
	token := prompt[len(prompt)-1].decoded(t)["reply_token"].(string)
	aud := audienceOf(acc, prompt[len(prompt)-1])

	body := replyBody(t, token, "accept", sub)
	now := time.Now()
	sign := func(k *sigrpl.Key, b []byte, at time.Time) string {
		t.Helper()
		sig, err := k.SignDetached(b, aud, at)
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	good := sign(k, body, now)
	tampered := bytes.Replace(body, []byte(`"accept"`), []byte(`"reject"`), 1)
	iat := now.Unix()
	refused := []struct {
		name string
		body []byte
		sig  string
	}{
		{"tampered body", tampered, good},
		{"reformatted body", append(body, ' '), good},
		{"wrong key", body, sign(other, body, now)},
		{"wrong key under the right kid", body, unsignedHeader(
			map[string]any{"alg": "ES256", "kid": k.KID(), "typ": sigrpl.JWSType, "iat": iat},
			strings.Split(sign(other, body, now), ".")[2])},
		{"alg none", body, unsignedHeader(map[string]any{"alg": "none", "kid": k.KID(), "typ": sigrpl.JWSType, "iat": iat}, "")},
		{"HS256", body, unsignedHeader(map[string]any{"alg": "HS256", "kid": k.KID(), "typ": sigrpl.JWSType, "iat": iat},
			base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)))},
		{"expired", body, sign(k, body, now.Add(-sigrpl.DefaultMaxAge-time.Minute))},
		{"garbage", body, "not a jws"},
	}
	for _, c := range refused {
		if code, answer := postSigned(t, srv.URL+protocol.PathReplies, c.body, c.sig); code != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", c.name, code, answer)
		}
	}
	if o := p.Outcomes(); len(o) != 0 {
		t.Fatalf("a refused reply settled the prompt: %+v", o)
	}
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, good); code != http.StatusAccepted {
		t.Fatalf("valid signed reply: %d %s", code, answer)
	}
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, good); code != http.StatusConflict {
		t.Errorf("replayed signed reply: %d %s, want 409", code, answer)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Accepted {
		t.Errorf("outcomes %+v", o)
	}
}

func TestSignedReplyOtherSubscription(t *testing.T) {
	k, other := sigKey(t), sigKey(t)
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true})
	_, acc, s := subscribeSigned(t, srv, k)
	_, accOther, _ := subscribeSigned(t, srv, other)
	_, accPlain, _ := subscribeSigned(t, srv, nil)
	prompt := s.until(t, protocol.TypeAwaitingConfirmation)
	token := prompt[len(prompt)-1].decoded(t)["reply_token"].(string)
	// Signed with k, but naming the subscription of other's key: refused.
	body := replyBody(t, token, "accept", accOther["subscription_id"].(string))
	sig, _ := k.SignDetached(body, audienceOf(accOther, prompt[len(prompt)-1]), time.Now())
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, sig); code != http.StatusUnauthorized {
		t.Errorf("reply naming another key's subscription: %d %s", code, answer)
	}
	// Signed, naming a subscription that offered no key: refused.
	body = replyBody(t, token, "accept", accPlain["subscription_id"].(string))
	sig, _ = k.SignDetached(body, audienceOf(accPlain, prompt[len(prompt)-1]), time.Now())
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, sig); code != http.StatusUnauthorized {
		t.Errorf("signed reply on a keyless subscription: %d %s", code, answer)
	}
	// Unsigned replies still count when signatures are not required.
	body = replyBody(t, token, "reject", acc["subscription_id"].(string))
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, ""); code != http.StatusAccepted {
		t.Errorf("unsigned reply: %d %s", code, answer)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Rejected {
		t.Errorf("outcomes %+v", o)
	}
}

func TestSignedReplyPinningAndRequired(t *testing.T) {
	k, other := sigKey(t), sigKey(t)
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true,
		PinnedKeys: []string{k.KID()}, RequireSignedReplies: true})
	if code, acc, _ := subscribeSigned(t, srv, other); code != http.StatusForbidden || acc["reason_code"] != "authorization_denied" {
		t.Errorf("unpinned key: %d %v", code, acc)
	}
	if code, acc, _ := subscribeSigned(t, srv, nil); code != http.StatusUnauthorized || acc["reason_code"] != "authentication_required" {
		t.Errorf("no key: %d %v", code, acc)
	}
	code, acc, s := subscribeSigned(t, srv, k)
	if code != http.StatusCreated {
		t.Fatalf("pinned key: %d %v", code, acc)
	}
	if h := acc["honored_capabilities"].(map[string]any)["sigrpl"].(map[string]any); h["required"] != true {
		t.Errorf("honored %v", h)
	}
	prompt := s.until(t, protocol.TypeAwaitingConfirmation)
	token := prompt[len(prompt)-1].decoded(t)["reply_token"].(string)
	body := replyBody(t, token, "accept", acc["subscription_id"].(string))
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, ""); code != http.StatusUnauthorized {
		t.Errorf("unsigned reply where signatures are required: %d %s", code, answer)
	}
	sig, _ := k.SignDetached(body, audienceOf(acc, prompt[len(prompt)-1]), time.Now())
	if code, answer := postSigned(t, srv.URL+protocol.PathReplies, body, sig); code != http.StatusAccepted {
		t.Errorf("signed reply: %d %s", code, answer)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Accepted {
		t.Errorf("outcomes %+v", o)
	}
}

func TestSignedReplyWebSocket(t *testing.T) {
	k, other := sigKey(t), sigKey(t)
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true, RequireSignedReplies: true})
	c, _, err := wsDial(t, srv.URL, []string{protocol.Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o, _ := k.Offer()
	req, _ := json.Marshal(map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "t",
		"capabilities": map[string]any{"supports_confirmation_reply": true, "sigrpl": map[string]any{"required": false}}, "extensions": map[string]any{"sigrpl": o}})
	_ = c.WriteMessage(websocket.TextMessage, req)
	acc := wsRead(t, c)
	if acc["honored_capabilities"].(map[string]any)["sigrpl"] == nil {
		t.Fatalf("accepted %v", acc)
	}
	sub := acc["subscription_id"].(string)
	var token string
	var aud sigrpl.Audience
	for token == "" {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, raw, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil && m["type"] == protocol.TypeAwaitingConfirmation {
			token = m["reply_token"].(string)
			aud = audienceOf(acc, sseEvent{data: string(raw)})
		}
	}
	// The replies to refuse reject; the good one, sent last on the same
	// connection, accepts. Messages of one connection are taken in order,
	// so a refused reply that settled the prompt would show as a
	// rejection, and no wait is needed to see it.
	body := replyBody(t, token, "reject", sub)
	now := time.Now()
	wrongKey, _ := other.Wrap(body, aud, now)
	expired, _ := k.Wrap(body, aud, now.Add(-time.Hour))
	otherSub, _ := k.Wrap(replyBody(t, token, "reject", "sub_000000000000000000000000"), aud, now)
	elsewhere := aud
	elsewhere.Subscription = "sub_000000000000000000000000"
	addressedElsewhere, _ := k.Wrap(replyBody(t, token, "reject", ""), elsewhere, now)
	otherPrompt := aud
	otherPrompt.Prompt = sigrpl.PromptDigest([]byte(`{"type":"aaep:agent.awaiting.confirmation"}`))
	answersAnother, _ := k.Wrap(body, otherPrompt, now)
	good, _ := k.Wrap(replyBody(t, token, "accept", sub), aud, now)
	for _, msg := range [][]byte{body, wrongKey, expired, otherSub, addressedElsewhere, answersAnother} {
		_ = c.WriteMessage(websocket.TextMessage, msg)
	}
	_ = c.WriteMessage(websocket.TextMessage, good)
	deadline := time.Now().Add(5 * time.Second)
	for len(p.Outcomes()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Accepted || o[0].SubscriptionID != sub {
		t.Errorf("outcomes %+v", o)
	}
}

// TestSignedReplyDeployedPath posts signed replies to the deployed
// /messages path, which a reply may reach without naming its subscription.
// A signature there is checked as on /aaep/v1/replies: a changed body is
// refused and settles nothing, and the real signed reply is then accepted.
func TestSignedReplyDeployedPath(t *testing.T) {
	for _, named := range []bool{false, true} {
		t.Run(map[bool]string{false: "no subscription_id", true: "subscription_id"}[named], func(t *testing.T) {
			k, stranger := sigKey(t), sigKey(t)
			p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true})
			code, acc, s := subscribeSigned(t, srv, k)
			if code != http.StatusCreated {
				t.Fatalf("subscribe: %d %v", code, acc)
			}
			sub := ""
			if named {
				sub = acc["subscription_id"].(string)
			}
			prompt := s.until(t, protocol.TypeAwaitingConfirmation)
			token := prompt[len(prompt)-1].decoded(t)["reply_token"].(string)

			real := replyBody(t, token, "reject", sub)
			aud := audienceOf(acc, prompt[len(prompt)-1])
			sig, err := k.SignDetached(real, aud, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			forged := bytes.Replace(real, []byte(`"reject"`), []byte(`"accept"`), 1)
			strangerSig, _ := stranger.SignDetached(forged, aud, time.Now())
			for _, c := range []struct {
				name, sig string
				body      []byte
			}{
				{"changed body", sig, forged},
				{"key no subscription offered", strangerSig, forged},
				{"garbage signature", "not a jws", forged},
			} {
				code, answer := postSigned(t, srv.URL+protocol.PathLegacyReplies, c.body, c.sig)
				if code != http.StatusUnauthorized || !strings.Contains(answer, "signature") {
					t.Errorf("%s on %s: %d %s, want 401 saying why", c.name, protocol.PathLegacyReplies, code, answer)
				}
			}
			if o := p.Outcomes(); len(o) != 0 {
				t.Fatalf("a forged reply settled the prompt: %+v", o)
			}
			if code, answer := postSigned(t, srv.URL+protocol.PathLegacyReplies, real, sig); code != http.StatusAccepted {
				t.Fatalf("the real signed reply: %d %s, want 202", code, answer)
			}
			if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Rejected {
				t.Errorf("outcomes %+v, want the real reject", o)
			}
		})
	}
}

// TestSignedReplyAudience: a signed reply is taken only by the producer,
// on the subscription and for the prompt event its signature names. The
// same key offered on two subscriptions does not let a reply given on one
// be taken on the other, and a reply that names no subscription is bound
// to the one its signature names, never to whichever offered the key.
func TestSignedReplyAudience(t *testing.T) {
	k := sigKey(t)
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true,
		PinnedKeys: []string{k.KID()}, RequireSignedReplies: true})
	_, acc, s := subscribeSigned(t, srv, k)
	_, accTwin, _ := subscribeSigned(t, srv, k)
	if acc == nil || accTwin == nil {
		t.Fatal("subscribe refused")
	}
	prompt := s.until(t, protocol.TypeAwaitingConfirmation)
	ev := prompt[len(prompt)-1]
	token := ev.decoded(t)["reply_token"].(string)
	aud, twin := audienceOf(acc, ev), audienceOf(accTwin, ev)
	sub := aud.Subscription
	with := func(f func(*sigrpl.Audience)) sigrpl.Audience {
		a := aud
		f(&a)
		return a
	}
	harmless := sigrpl.PromptDigest([]byte(`{"type":"aaep:agent.awaiting.confirmation","action":"Show the weather."}`))
	for _, c := range []struct {
		name string
		sub  string // the reply's subscription_id; "" leaves it out
		aud  sigrpl.Audience
	}{
		{"another producer", sub, with(func(a *sigrpl.Audience) { a.Producer = "weather" })},
		{"another prompt", sub, with(func(a *sigrpl.Audience) { a.Prompt = harmless })},
		{"another prompt, no subscription_id", "", with(func(a *sigrpl.Audience) { a.Prompt = harmless })},
		{"the twin subscription's, naming this one", sub, twin},
		{"this subscription's, naming the twin", twin.Subscription, aud},
		{"a subscription this producer never made, no subscription_id", "", with(func(a *sigrpl.Audience) { a.Subscription = "sub_weather" })},
	} {
		body := replyBody(t, token, "accept", c.sub)
		sig, err := k.SignDetached(body, c.aud, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{protocol.PathLegacyReplies, protocol.PathReplies} {
			if c.sub == "" && path == protocol.PathReplies {
				continue // the spec path requires subscription_id
			}
			if code, answer := postSigned(t, srv.URL+path, body, sig); code != http.StatusUnauthorized {
				t.Errorf("%s on %s: %d %s, want 401", c.name, path, code, answer)
			}
		}
	}
	if o := p.Outcomes(); len(o) != 0 {
		t.Fatalf("a reply signed for another audience settled the prompt: %+v", o)
	}
	// Without subscription_id, the reply is taken on the subscription its
	// signature names: the twin.
	body := replyBody(t, token, "reject", "")
	sig, _ := k.SignDetached(body, twin, time.Now())
	if code, answer := postSigned(t, srv.URL+protocol.PathLegacyReplies, body, sig); code != http.StatusAccepted {
		t.Fatalf("reply addressed to the twin: %d %s", code, answer)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Rejected || o[0].SubscriptionID != twin.Subscription {
		t.Errorf("outcomes %+v, want a reject on %s", o, twin.Subscription)
	}
}
