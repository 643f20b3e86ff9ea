package sigrpl

import (
	"testing"
)

// FuzzParseOffer: any offer either yields a verifier whose kid is the
// thumbprint or is refused, never a panic.
func FuzzParseOffer(f *testing.F) {
	k, err := Generate()
	if err != nil {
		f.Fatal(err)
	}
	o, _ := k.Offer()
	f.Add([]byte(`{"alg":"ES256","kid":"` + o.KID + `","jwk":` + string(o.JWK) + `}`))
	f.Add([]byte(`{"alg":"none"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := ParseOffer(raw)
		if err == nil && v.KID() == "" {
			t.Fatal("accepted an offer without a kid")
		}
	})
}

// FuzzVerify: no signature but k's own over these exact bytes is accepted.
func FuzzVerify(f *testing.F) {
	k, err := Generate()
	if err != nil {
		f.Fatal(err)
	}
	sig, _ := k.SignDetached(body, aud, now)
	msg, _ := k.Wrap(body, aud, now)
	f.Add(sig, body, msg)
	f.Add("eyJhbGciOiJub25lIn0..", body, []byte(`{"type":"sigrpl:signed.reply","jws":"x.y.z"}`))
	v := NewVerifier(k)
	f.Fuzz(func(t *testing.T, s string, b []byte, wrapped []byte) {
		if _, err := v.Verify(s, b, now); err == nil && (s != sig || string(b) != string(body)) {
			// ECDSA signatures are randomized; only a signature made by
			// the key can verify, and the fuzzer cannot make one.
			if string(b) != string(body) {
				t.Fatalf("signature %q verified over other bytes %q", s, b)
			}
		}
		if got, _, err := v.Unwrap(wrapped, now); err == nil && string(got) != string(body) {
			t.Fatalf("unwrapped a reply never signed: %q", got)
		}
	})
}
