package sigrpl

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

var (
	now  = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	body = []byte(`{"type":"confirmation.reply","reply_token":"rt_0123456789abcdef","decision":"accept"}`)
	aud  = Audience{Producer: "bank", Subscription: "sub_1", Prompt: PromptDigest([]byte(`{"type":"aaep:agent.awaiting.confirmation"}`))}
)

func genKey(t *testing.T) *Key {
	t.Helper()
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// b64 is base64url without padding.
func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestThumbprintRFC7638(t *testing.T) {
	// The example key of RFC 7638 §3.1 and its thumbprint.
	const rsaJWK = `{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}`
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON([]byte(rsaJWK)); err != nil {
		t.Fatal(err)
	}
	got, err := Thumbprint(jwk)
	if err != nil {
		t.Fatal(err)
	}
	if want := "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"; got != want {
		t.Errorf("thumbprint %s, want %s", got, want)
	}
}

func TestSignVerifyDetached(t *testing.T) {
	k := genKey(t)
	sig, err := k.SignDetached(body, aud, now)
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(sig, "."); len(parts) != 3 || parts[1] != "" {
		t.Fatalf("want a detached compact JWS, got %q", sig)
	}
	v := NewVerifier(k)
	got, err := v.Verify(sig, body, now.Add(time.Second))
	if err != nil {
		t.Fatalf("valid signature refused: %v", err)
	}
	if got != aud {
		t.Errorf("audience %+v, want %+v", got, aud)
	}
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(sig, ".")[0])
	var h map[string]any
	if err := json.Unmarshal(hdr, &h); err != nil {
		t.Fatal(err)
	}
	if h["alg"] != "ES256" || h["kid"] != k.KID() || h["typ"] != JWSType || h["iat"] != float64(now.Unix()) ||
		h["aud"] != aud.Producer || h["sigrpl_sub"] != aud.Subscription || h["sigrpl_prompt"] != aud.Prompt {
		t.Errorf("protected header %v", h)
	}
}

func TestVerifyRefuses(t *testing.T) {
	k, other := genKey(t), genKey(t)
	v := NewVerifier(k)
	good, err := k.SignDetached(body, aud, now)
	if err != nil {
		t.Fatal(err)
	}
	fromOther, _ := other.SignDetached(body, aud, now)
	// other's signature, relabelled with k's kid: the kid matches, the signature does not.
	relabelled := forge(t, map[string]any{"alg": "ES256", "kid": k.KID(), "typ": JWSType, "iat": now.Unix(),
		"aud": aud.Producer, "sigrpl_sub": aud.Subscription, "sigrpl_prompt": aud.Prompt}, "", strings.Split(fromOther, ".")[2])
	hs := hmacSig(t, k.KID())
	none := forge(t, map[string]any{"alg": "none", "kid": k.KID(), "typ": JWSType, "iat": now.Unix()}, "", "")
	noTyp := resign(t, k, map[string]any{"alg": "ES256", "kid": k.KID(), "iat": now.Unix()})
	noIat := resign(t, k, map[string]any{"alg": "ES256", "kid": k.KID(), "typ": JWSType})
	header := map[string]any{"alg": "ES256", "kid": k.KID(), "typ": JWSType, "iat": now.Unix(),
		"aud": aud.Producer, "sigrpl_sub": aud.Subscription, "sigrpl_prompt": aud.Prompt}
	without := func(name string, v any) string {
		h := map[string]any{}
		for k, v := range header {
			h[k] = v
		}
		delete(h, name)
		if v != nil {
			h[name] = v
		}
		return resign(t, k, h)
	}
	tampered := append([]byte{}, body...)
	tampered[len(tampered)-3] = 'X' // "accept" → "accepX"
	spaced := append([]byte(" "), body...)

	cases := []struct {
		name string
		sig  string
		body []byte
		at   time.Time
		want error
	}{
		{"tampered body", good, tampered, now, ErrBadSignature},
		{"same JSON, other bytes", good, spaced, now, ErrBadSignature},
		{"other key", fromOther, body, now, ErrUnknownKey},
		{"other key under this kid", relabelled, body, now, ErrBadSignature},
		{"alg none", none, body, now, ErrAlgorithm},
		{"HS256", hs, body, now, ErrAlgorithm},
		{"expired", good, body, now.Add(DefaultMaxAge + time.Second), ErrExpired},
		{"from the future", good, body, now.Add(-DefaultSkew - time.Second), ErrExpired},
		{"no typ", noTyp, body, now, ErrMalformed},
		{"no iat", noIat, body, now, ErrMalformed},
		{"as signed before audiences", resign(t, k, map[string]any{"alg": "ES256", "kid": k.KID(), "typ": JWSType, "iat": now.Unix()}), body, now, ErrAudience},
		{"no producer", without("aud", nil), body, now, ErrAudience},
		{"producer not a string", without("aud", []string{"bank"}), body, now, ErrAudience},
		{"no subscription", without("sigrpl_sub", nil), body, now, ErrAudience},
		{"no prompt", without("sigrpl_prompt", nil), body, now, ErrAudience},
		{"prompt not a digest", without("sigrpl_prompt", "evt_1"), body, now, ErrAudience},
		{"empty", "", body, now, ErrMalformed},
		{"garbage", "a.b.c", body, now, ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Verify(c.sig, c.body, c.at)
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
}

// forge builds a compact JWS with the given protected header, payload and
// signature (all but the header taken as they are).
func forge(t *testing.T, hdr map[string]any, payload, sig string) string {
	t.Helper()
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	return b64(string(h)) + "." + payload + "." + sig
}

// resign signs body with k under exactly the header hdr, detached.
func resign(t *testing.T, k *Key, hdr map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	for name, v := range hdr {
		if name != "alg" && name != "kid" {
			opts.WithHeader(jose.HeaderKey(name), v)
		}
	}
	return detached(t, jose.ES256, jose.JSONWebKey{Key: k.priv, KeyID: k.kid}, opts)
}

// hmacSig is an HS256 signature over body under kid, well formed otherwise.
func hmacSig(t *testing.T, kid string) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType(JWSType).WithHeader("iat", now.Unix())
	return detached(t, jose.HS256, jose.JSONWebKey{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: kid}, opts)
}

func detached(t *testing.T, alg jose.SignatureAlgorithm, key jose.JSONWebKey, opts *jose.SignerOptions) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(body)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.DetachedCompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWrapUnwrap(t *testing.T) {
	k, other := genKey(t), genKey(t)
	msg, err := k.Wrap(body, aud, now)
	if err != nil {
		t.Fatal(err)
	}
	got, gotAud, err := NewVerifier(k).Unwrap(msg, now)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(body) || gotAud != aud {
		t.Errorf("unwrapped %s for %+v, want %s for %+v", got, gotAud, body, aud)
	}
	if _, _, err := NewVerifier(other).Unwrap(msg, now); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("other key: %v", err)
	}
	if _, _, err := NewVerifier(k).Unwrap(msg, now.Add(time.Hour)); !errors.Is(err, ErrExpired) {
		t.Errorf("an hour later: %v", err)
	}
	// Swap the payload for another reply: the signature no longer holds.
	var m SignedReply
	_ = json.Unmarshal(msg, &m)
	parts := strings.Split(m.JWS, ".")
	parts[1] = b64(strings.Replace(string(body), "accept", "reject", 1))
	m.JWS = strings.Join(parts, ".")
	swapped, _ := json.Marshal(m)
	if _, _, err := NewVerifier(k).Unwrap(swapped, now); !errors.Is(err, ErrBadSignature) {
		t.Errorf("swapped payload: %v", err)
	}
	none, _ := json.Marshal(SignedReply{TypeSignedReply, forge(t, map[string]any{"alg": "none", "kid": k.KID(), "typ": JWSType, "iat": now.Unix()}, b64(string(body)), "")})
	if _, _, err := NewVerifier(k).Unwrap(none, now); !errors.Is(err, ErrAlgorithm) {
		t.Errorf("alg none: %v", err)
	}
	if _, _, err := NewVerifier(k).Unwrap([]byte(`{"type":"confirmation.reply"}`), now); !errors.Is(err, ErrMalformed) {
		t.Errorf("plain reply: %v", err)
	}
}

// A reply is signed only for a whole audience, and Check names the part
// that differs.
func TestAudience(t *testing.T) {
	k := genKey(t)
	for _, missing := range []Audience{
		{Subscription: "sub_1", Prompt: aud.Prompt},
		{Producer: "bank", Prompt: aud.Prompt},
		{Producer: "bank", Subscription: "sub_1"},
		{Producer: "bank", Subscription: "sub_1", Prompt: "sha-256:"},
	} {
		if _, err := k.SignDetached(body, missing, now); !errors.Is(err, ErrAudience) {
			t.Errorf("SignDetached for %+v: %v", missing, err)
		}
		if _, err := k.Wrap(body, missing, now); !errors.Is(err, ErrAudience) {
			t.Errorf("Wrap for %+v: %v", missing, err)
		}
	}
	if err := aud.Check(aud); err != nil {
		t.Errorf("own audience: %v", err)
	}
	for name, want := range map[string]Audience{
		"producer":     {Producer: "weather", Subscription: aud.Subscription, Prompt: aud.Prompt},
		"subscription": {Producer: aud.Producer, Subscription: "sub_2", Prompt: aud.Prompt},
		"prompt":       {Producer: aud.Producer, Subscription: aud.Subscription, Prompt: PromptDigest([]byte(`{}`))},
	} {
		err := aud.Check(want)
		if !errors.Is(err, ErrAudience) || !strings.Contains(err.Error(), name) {
			t.Errorf("another %s: %v", name, err)
		}
	}
	if PromptDigest([]byte(`{"a":1}`)) == PromptDigest([]byte(`{"a": 1}`)) {
		t.Error("the digest is not over the exact bytes")
	}
}

func TestOffer(t *testing.T) {
	k := genKey(t)
	o, err := k.Offer()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(o)
	v, err := ParseOffer(raw)
	if err != nil {
		t.Fatalf("own offer refused: %v", err)
	}
	if v.KID() != k.KID() {
		t.Errorf("kid %s, want %s", v.KID(), k.KID())
	}
	sig, _ := k.SignDetached(body, aud, now)
	if _, err := v.Verify(sig, body, now); err != nil {
		t.Errorf("verifier from the offer: %v", err)
	}

	private, _ := jose.JSONWebKey{Key: k.priv, KeyID: k.kid, Algorithm: Alg}.MarshalJSON()
	other := genKey(t)
	otherOffer, _ := other.Offer()
	for name, raw := range map[string]string{
		"private key": `{"alg":"ES256","kid":"` + k.KID() + `","jwk":` + string(private) + `}`,
		"wrong kid":   `{"alg":"ES256","kid":"` + k.KID() + `","jwk":` + string(otherOffer.JWK) + `}`,
		"alg RS256":   `{"alg":"RS256","kid":"` + k.KID() + `","jwk":` + string(o.JWK) + `}`,
		"no jwk":      `{"alg":"ES256","kid":"` + k.KID() + `"}`,
		"not object":  `"ES256"`,
		"hmac jwk":    `{"alg":"ES256","kid":"x","jwk":{"kty":"oct","k":"c2VjcmV0"}}`,
	} {
		if _, err := ParseOffer([]byte(raw)); err == nil {
			t.Errorf("%s: offer accepted", name)
		}
	}
}

func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aaep-term", KeyFile)
	k, created, err := LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("first use: created %v, %v", created, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	again, created, err := LoadOrCreate(path)
	if err != nil || created {
		t.Fatalf("second use: created %v, %v", created, err)
	}
	if again.KID() != k.KID() {
		t.Errorf("key changed: %s then %s", k.KID(), again.KID())
	}
	if err := k.Save(path); err == nil {
		t.Error("Save overwrote an existing key")
	}
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(path); err == nil {
		t.Error("a broken key file was replaced or accepted")
	}
}
