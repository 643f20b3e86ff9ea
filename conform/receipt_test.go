package conform

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

var testNow = time.Date(2026, 11, 24, 4, 0, 0, 0, time.UTC)

func mustKey(t *testing.T, kt KeyType) *SigningKey {
	t.Helper()
	k, err := GenerateKey(kt)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signed signs the receipt of a conforming L2 report, after edit.
func signed(t *testing.T, k *SigningKey, edit func(*Receipt)) string {
	t.Helper()
	return signedReport(t, k, sampleReport(2, Pass, Pass, Warn, Pass), edit)
}

// signedReport signs the receipt of r, after edit.
func signedReport(t *testing.T, k *SigningKey, r *Report, edit func(*Receipt)) string {
	t.Helper()
	rc, err := NewReceipt(r, k, testNow, 0)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(rc)
	}
	s, err := rc.Sign(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ourSuite() Suite {
	return Suite{Name: "aaep-conform", Version: "v1.2.3", AAEPVersion: "1.0", Catalogue: strings.Repeat("ab", 32)}
}

func verifyOpts(keys ...*PublicKey) VerifyOptions {
	return VerifyOptions{Keys: keys, Now: testNow.Add(24 * time.Hour), Suite: ourSuite()}
}

// A receipt signed with either key type verifies with the key's public
// half, read back from every file format: PEM and JWK.
func TestReceiptRoundTrip(t *testing.T) {
	for _, kt := range []KeyType{KeyES256, KeyEdDSA} {
		t.Run(string(kt), func(t *testing.T) {
			k := mustKey(t, kt)
			jws := signed(t, k, nil)
			dir := t.TempDir()
			priv, _ := k.PrivatePEM()
			pub, _ := k.PublicPEM()
			jwkPub, _ := json.Marshal(jose.JSONWebKey{Key: k.key.Public()})
			jwkPriv, _ := json.Marshal(jose.JSONWebKey{Key: k.key})
			files := map[string][]byte{"key.pem": priv, "key.pub": pub, "pub.jwk": jwkPub, "priv.jwk": jwkPriv}
			for name, b := range files {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for name := range files {
				pk, err := LoadPublicKey(filepath.Join(dir, name))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if pk.KeyID() != k.KeyID() || pk.Alg() != string(kt) {
					t.Errorf("%s: key %s %s, want %s %s", name, pk.KeyID(), pk.Alg(), k.KeyID(), kt)
				}
				v, err := VerifyReceipt([]byte(jws+"\n"), verifyOpts(pk))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if v.Receipt.LevelClaimed != 2 || len(v.Notes) != 0 || v.Key != pk {
					t.Errorf("%s: claimed %d, notes %q", name, v.Receipt.LevelClaimed, v.Notes)
				}
				if want := "Demo " + hostile + " 0.1 is AAEP Level 2 conformant, verified by aaep-conform version v1.2.3 on 2026-11-24"; v.Receipt.Claim() != want {
					t.Errorf("claim %q", v.Receipt.Claim())
				}
			}
			for _, name := range []string{"key.pem", "priv.jwk"} {
				sk, err := LoadSigningKey(filepath.Join(dir, name))
				if err != nil || sk.KeyID() != k.KeyID() {
					t.Errorf("signing key from %s: %v", name, err)
				}
			}
			// A trusted-keys directory finds the key by its kid among others.
			other := mustKey(t, KeyES256)
			op, _ := other.PublicPEM()
			os.WriteFile(filepath.Join(dir, "other.pem"), op, 0o600)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a key"), 0o600)
			keys, problems, err := LoadTrustedKeys(dir)
			if err != nil || len(problems) != 0 || len(keys) != 5 {
				t.Fatalf("trusted keys: %d keys, problems %v, %v", len(keys), problems, err)
			}
			if _, err := VerifyReceipt([]byte(jws), verifyOpts(keys...)); err != nil {
				t.Errorf("with the trusted-keys directory: %v", err)
			}
		})
	}
}

// Only a real asymmetric key of the two algorithms signs: an HMAC secret,
// an RSA key, a P-384 key, a public key alone, or nothing are refused.
func TestSigningKeyRefused(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKCS8PrivateKey(p384)
	pub, _ := mustKey(t, KeyES256).PublicPEM()
	for _, c := range []struct{ name, key, want string }{
		{"hmac jwk", `{"kty":"oct","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}`, "shared secret (HMAC)"},
		{"rsa", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: rsaDER})), "P-256 (ES256) or Ed25519"},
		{"p384", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p384DER})), "P-384"},
		{"public only", string(pub), "public key"},
		{"empty", "", "neither a PEM block nor a JWK"},
		{"placeholder", "PLACEHOLDER", "neither a PEM block nor a JWK"},
		{"certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "not a key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSigningKey([]byte(c.key))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	var rc Receipt
	if _, err := rc.Sign(nil); err == nil {
		t.Error("a receipt was signed without a key")
	}
}

// b64json encodes v as a JWS part.
func b64json(v any) string {
	b, _ := json.Marshal(v)
	return b64.EncodeToString(b)
}

// Every kind of receipt that must not be believed is refused, each with its
// reason; a good one verifies.
func TestVerifyRefuses(t *testing.T) {
	k := mustKey(t, KeyES256)
	good := signed(t, k, nil)
	parts := strings.Split(good, ".")
	payload, _ := b64.DecodeString(parts[1])

	// tampered: the level claimed raised from 2 to 3 after signing.
	tampered := parts[0] + "." + b64.EncodeToString([]byte(strings.Replace(string(payload), `"level_claimed":2`, `"level_claimed":3`, 1))) + "." + parts[2]
	if tampered == good {
		t.Fatal("the tampering changed nothing")
	}
	// HS256: a real HMAC signature over the same payload.
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, (&jose.SignerOptions{}).WithHeader("kid", k.KeyID()))
	hsJWS, _ := hs.Sign(payload)
	hsCompact, _ := hsJWS.CompactSerialize()
	none := b64json(map[string]string{"alg": "none", "kid": k.KeyID()}) + "." + parts[1] + "."
	untrusted := mustKey(t, KeyEdDSA)
	keyFile := k.Public()
	keyFile.Source = "trusted.pem"
	other := untrusted.Public()
	other.Source = "their.pem"
	zeros := b64.EncodeToString(make([]byte, 64))
	text := b64.EncodeToString([]byte(strings.Repeat("PLACEHOLDER-SIGNATURE-", 3)[:64]))

	for _, c := range []struct {
		name string
		jws  string
		keys []*PublicKey
		now  time.Time
		want string
	}{
		{"tampered", tampered, nil, time.Time{}, "signature does not match its content"},
		{"expired", good, nil, testNow.Add(91 * 24 * time.Hour), "it expired on 2027-02-22"},
		{"expired with --valid-for", signed(t, k, func(r *Receipt) { r.ExpiresAt = r.IssuedAt.Add(time.Hour) }), nil, time.Time{}, "it expired on"},
		{"untrusted key", signed(t, untrusted, nil), nil, time.Time{}, "not by the key in trusted.pem"},
		{"untrusted among several", signed(t, untrusted, nil), []*PublicKey{k.Public(), mustKey(t, KeyES256).Public()}, time.Time{}, "not one of the 2 keys you trust"},
		{"key given is not the signer", good, []*PublicKey{other}, time.Time{}, "not by the key in their.pem"},
		{"placeholder: empty signature", parts[0] + "." + parts[1] + ".", nil, time.Time{}, "no signature (an empty placeholder)"},
		{"placeholder: word", parts[0] + "." + parts[1] + ".PLACEHOLDER", nil, time.Time{}, "placeholder, not a signature"},
		{"placeholder: zeros", parts[0] + "." + parts[1] + "." + zeros, nil, time.Time{}, "64 identical bytes: a placeholder"},
		{"placeholder: text", parts[0] + "." + parts[1] + "." + text, nil, time.Time{}, "plain text"},
		{"placeholder: not base64", parts[0] + "." + parts[1] + ".<signature here>", nil, time.Time{}, "not base64url: a placeholder"},
		{"placeholder: json", `{"receipt": {}, "signature": "placeholder"}`, nil, time.Time{}, "signature field, a placeholder"},
		{"alg none", none, nil, time.Time{}, `unsigned (algorithm "none")`},
		{"HS256", hsCompact, nil, time.Time{}, "shared secret (HS256, HMAC)"},
		{"RS256", b64json(map[string]string{"alg": "RS256", "kid": k.KeyID()}) + "." + parts[1] + "." + parts[2], nil, time.Time{}, `"RS256": receipts are signed with ES256 or EdDSA only`},
		{"alg swapped to EdDSA", b64json(map[string]string{"alg": "EdDSA", "kid": k.KeyID()}) + "." + parts[1] + "." + parts[2], nil, time.Time{}, "is an ES256 key"},
		{"no kid", b64json(map[string]string{"alg": "ES256"}) + "." + parts[1] + "." + parts[2], nil, time.Time{}, "names no signing key"},
		{"two parts", parts[0] + "." + parts[1], nil, time.Time{}, "2 parts"},
		{"empty", "  \n", nil, time.Time{}, "the file is empty"},
		{"claim beyond results", signed(t, k, func(r *Receipt) { r.LevelClaimed = 3; r.LevelTested = 3 }), nil, time.Time{}, "claims Level 3, but its own results support Level 2"},
		{"summary beyond results", signed(t, k, func(r *Receipt) { r.Summary.Passed++ }), nil, time.Time{}, "summary"},
		{"issued in the future", signed(t, k, func(r *Receipt) { r.IssuedAt = testNow.Add(48 * time.Hour); r.ExpiresAt = r.IssuedAt.Add(time.Hour) }), nil, time.Time{}, "issued in the future"},
		{"schema", signed(t, k, func(r *Receipt) { r.Type = "something-else" }), nil, time.Time{}, "does not follow the receipt schema"},
		{"wrong typ", b64json(map[string]string{"alg": "ES256", "kid": k.KeyID(), "typ": "JWT"}) + "." + parts[1] + "." + parts[2], nil, time.Time{}, `"JWT", not a conformance receipt`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := verifyOpts(keyFile)
			if c.keys != nil {
				o.Keys = c.keys
			}
			if !c.now.IsZero() {
				o.Now = c.now
			}
			v, err := VerifyReceipt([]byte(c.jws), o)
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("got %+v, %v; want a refusal", v, err)
			}
			if !strings.Contains(ref.Reason, c.want) {
				t.Errorf("reason %q, want it to say %q", ref.Reason, c.want)
			}
		})
	}
	if _, err := VerifyReceipt([]byte(good), verifyOpts(keyFile)); err != nil {
		t.Errorf("the good receipt: %v", err)
	}
}

// A receipt from a newer suite, or with a catalogue we do not know, is
// accepted with a note saying so.
func TestVerifyNotesSuiteDifferences(t *testing.T) {
	k := mustKey(t, KeyEdDSA)
	jws := signed(t, k, func(r *Receipt) { r.Suite.Version = "v1.10.0"; r.Suite.Catalogue = strings.Repeat("cd", 32) })
	v, err := VerifyReceipt([]byte(jws), verifyOpts(k.Public()))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(v.Notes, "\n")
	for _, want := range []string{"version v1.10.0, newer than ours (v1.2.3)", "catalogue (SHA-256 cdcd", "is not ours"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	for _, c := range []struct {
		a, b string
		want int
		ok   bool
	}{{"v1.2.3", "v1.10.0", -1, true}, {"v2.0.0", "v1.9.9", 1, true}, {"v1.0.0-rc1", "v1.0.0", -1, true}, {"(devel)", "v1.0.0", 0, false}} {
		if got, ok := compareVersions(c.a, c.b); got != c.want || ok != c.ok {
			t.Errorf("compareVersions(%s, %s) = %d, %v", c.a, c.b, got, ok)
		}
	}
}

// A recheck runs a random subset of the receipt's tests we know, through
// TestProducer's Only and Seed, and compares; a receipt cannot make its
// verifier run a command or read a file.
func TestRecheck(t *testing.T) {
	rc := &Receipt{Role: RoleProducer, LevelTested: 2, Implementation: Target{Endpoint: "http://127.0.0.1:9/aaep"}}
	known := []Test{{ID: "P1-a", Level: 1}, {ID: "P1-b", Level: 1}, {ID: "P2-c", Level: 2}, {ID: "P2-d", Level: 2}, {ID: "P2-e", Level: 2}}
	for _, tt := range known {
		rc.Results = append(rc.Results, ResultStatus{ID: tt.ID, Level: tt.Level, Status: Pass})
	}
	rc.Results = append(rc.Results, ResultStatus{ID: "P9-unknown", Level: 1, Status: Pass})
	var asked ProducerOptions
	run := func(_ context.Context, o ProducerOptions) (*Report, error) {
		asked = o
		r := &Report{}
		for i, id := range o.Only {
			st := Pass
			if i == 0 {
				st = Fail
			}
			r.Results = append(r.Results, Result{Test: Test{ID: id}, Status: st, Detail: "now " + string(st)})
		}
		return r, nil
	}
	got, err := RecheckReceipt(context.Background(), rc, RecheckOptions{Run: run, Catalogue: known, Rand: mrand.New(mrand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if asked.Endpoint != rc.Implementation.Endpoint || asked.Level != 2 || asked.Seed == 0 || len(asked.Only) == 0 {
		t.Errorf("ran with %+v", asked)
	}
	if slices.Contains(asked.Only, "P9-unknown") {
		t.Error("a test not in our catalogue was asked for")
	}
	if got.Agree || got.Checked[0].Agrees || got.Checked[0].Now != Fail {
		t.Errorf("a test failing now agrees with the receipt: %+v", got)
	}
}

func TestRecheckRefusesCommandsAndFiles(t *testing.T) {
	for _, ep := range []string{"exec:rm -rf /", "file:/etc/passwd", "/etc/passwd", "-", ""} {
		rc := &Receipt{Role: RoleProducer, Implementation: Target{Endpoint: ep}, Results: []ResultStatus{{ID: "P1-x", Level: 1, Status: Pass}}}
		ran := false
		_, err := RecheckReceipt(context.Background(), rc, RecheckOptions{Run: func(context.Context, ProducerOptions) (*Report, error) { ran = true; return &Report{}, nil }})
		if err == nil || ran {
			t.Errorf("endpoint %q: ran %v, err %v", ep, ran, err)
		}
	}
	if _, err := RecheckReceipt(context.Background(), &Receipt{Role: RoleSubscriber}, RecheckOptions{}); err == nil {
		t.Error("a subscriber receipt was rechecked")
	}
}

// Whatever bytes a receipt file holds, verifying it neither panics nor
// accepts anything not signed by the trusted key.
func FuzzVerifyReceipt(f *testing.F) {
	k, err := GenerateKey(KeyES256)
	if err != nil {
		f.Fatal(err)
	}
	rc, _ := NewReceipt(sampleReport(2, Pass, Pass), k, testNow, 0)
	good, _ := rc.Sign(k)
	parts := strings.Split(good, ".")
	f.Add([]byte(good))
	f.Add([]byte(parts[0] + "." + parts[1] + "."))
	f.Add([]byte(`{"alg":"none"}`))
	f.Add([]byte("e30.e30.e30"))
	other, _ := GenerateKey(KeyEdDSA)
	trusted := other.Public() // the fuzzer cannot sign with it
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := VerifyReceipt(data, VerifyOptions{Keys: []*PublicKey{trusted}, Now: testNow, Suite: ourSuite()})
		if err == nil {
			t.Fatalf("accepted %q: %+v", data, v)
		}
		var ref *Refusal
		if !errors.As(err, &ref) || ref.Reason == "" {
			t.Fatalf("not a refusal with a reason: %v", err)
		}
	})
}

// A receipt is public: the credentials an endpoint's URL carries, and the
// values a command's environment is given, stay out.
func TestReceiptRedactsCredentials(t *testing.T) {
	k := mustKey(t, KeyEdDSA)
	r := sampleReport(1, Pass)
	r.Target.Endpoint = "https://ada:hunter2@agent.example/aaep?api_key=s3cr3t&mode=live"
	rc, err := NewReceipt(r, k, testNow, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := rc.Implementation.Endpoint
	if strings.Contains(got, "hunter2") || strings.Contains(got, "s3cr3t") || !strings.Contains(got, "mode=live") || !strings.Contains(got, "agent.example/aaep") {
		t.Errorf("endpoint in the receipt: %q", got)
	}
	r.Target.Endpoint = "acp:env GEMINI_API_KEY=s3cr3t gemini --experimental-acp"
	if rc, err = NewReceipt(r, k, testNow, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := rc.Implementation.Endpoint, "acp:env GEMINI_API_KEY=… gemini --experimental-acp"; got != want {
		t.Errorf("endpoint in the receipt: %q, want %q", got, want)
	}
	for _, keep := range []string{"unix:/run/aaep/agent", "ws://127.0.0.1:8080/aaep/v1/ws"} {
		if got := redactURL(keep); got != keep {
			t.Errorf("redactURL(%q) = %q", keep, got)
		}
	}
}

// A JSON report matches its own receipt, and no other, by results_sha256.
func TestMatchReport(t *testing.T) {
	k := mustKey(t, KeyES256)
	r := sampleReport(3, Pass, Fail, Warn, Skip)
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	rc, _ := NewReceipt(r, k, testNow, 0)
	if err := MatchReport(rc, []byte(b.String())); err != nil {
		t.Errorf("the report of the run: %v", err)
	}
	changed := strings.Replace(b.String(), `"status": "fail"`, `"status": "pass"`, 1)
	if err := MatchReport(rc, []byte(changed)); err == nil || !strings.Contains(err.Error(), "not the ones the receipt was signed over") {
		t.Errorf("a report with a failure turned into a pass: %v", err)
	}
	if err := MatchReport(rc, []byte(`{}`)); err == nil {
		t.Error("an empty document matches")
	}
}

func BenchmarkVerifyReceipt(b *testing.B) {
	for _, kt := range []KeyType{KeyES256, KeyEdDSA} {
		b.Run(string(kt), func(b *testing.B) {
			k, _ := GenerateKey(kt)
			rc, _ := NewReceipt(sampleReport(3, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass), k, testNow, 0)
			jws, _ := rc.Sign(k)
			o := VerifyOptions{Keys: []*PublicKey{k.Public()}, Now: testNow.Add(time.Hour), Suite: ourSuite()}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := VerifyReceipt([]byte(jws), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A receipt's validity is written as days or a Go duration, more than
// nothing and at most ten years, and read back as it was written.
func TestValidity(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "90d", want: "90d"},
		{in: "36h", want: "36h0m0s"},
		{in: "48h", want: "2d"},
		{in: "-3d", err: "at most ten years"},
		{in: "0s", err: "more than nothing"},
		{in: "4000d", err: "at most ten years"},
		{in: "xd", err: "want days such as 90d"},
		{in: "soon", err: "want days such as 90d"},
	} {
		var v Validity
		err := v.Set(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err == "" && v.String() != tc.want:
			t.Errorf("%s reads back as %s, want %s", tc.in, v.String(), tc.want)
		}
	}
}
