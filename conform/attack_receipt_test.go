package conform

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// signPayload signs payload, any bytes, with k as Receipt.Sign would sign
// a receipt: what a holder of the key, or a signer other than ours, could
// write.
func signPayload(t *testing.T, k *SigningKey, payload []byte) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType(ReceiptMediaType).WithHeader("kid", k.KeyID())
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A signed payload is read as exactly one receipt: the canonical JSON that
// Receipt.Sign writes. A payload where one key appears twice
// ("level_claimed":1 then "level_claimed":3) means one thing to one JSON
// reader and another to the next, so what verify reads might not be what
// the signer meant; it is refused, as is any other payload that is not the
// canonical form (reordered keys, spaces, escapes), since Sign never
// writes one.
func TestAttackReceiptPayloadNotCanonical(t *testing.T) {
	k := mustKey(t, KeyEdDSA)
	rc, err := NewReceipt(sampleReport(1, Pass, Pass), k, testNow, 0)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := Canonical(rc)
	if err != nil {
		t.Fatal(err)
	}
	good := string(canon)
	if !strings.Contains(good, `"level_claimed":1`) || !strings.Contains(good, `"level_tested":1`) {
		t.Fatalf("sample receipt is not a Level 1 receipt: %s", good)
	}
	if _, err := VerifyReceipt([]byte(signPayload(t, k, canon)), verifyOpts(k.Public())); err != nil {
		t.Fatalf("the canonical payload is refused: %v", err)
	}
	for _, c := range []struct{ name, payload string }{
		{"duplicate level, last wins", strings.Replace(good, `"level_claimed":1`, `"level_claimed":1,"level_claimed":1`, 1)},
		{"duplicate level tested", strings.Replace(good, `"level_tested":1`, `"level_tested":3,"level_tested":1`, 1)},
		{"duplicate digest", strings.Replace(good, `"results_sha256":`, `"results_sha256":"`+strings.Repeat("0", 64)+`","results_sha256":`, 1)},
		{"duplicate nested key", strings.Replace(good, `"status":"pass"`, `"status":"fail","status":"pass"`, 1)},
		{"spaces", strings.Replace(good, `,`, `, `, -1)},
		{"escaped key", strings.Replace(good, `"fast"`, `"f\u0061st"`, 1)},
		{"trailing newline inside", good + " "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := VerifyReceipt([]byte(signPayload(t, k, []byte(c.payload))), verifyOpts(k.Public()))
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("payload %s\naccepted (err %v), want a refusal", c.payload, err)
			}
			if !strings.Contains(ref.Reason, "canonical") {
				t.Errorf("reason %q does not say the content is not canonical", ref.Reason)
			}
		})
	}
}

// Deep nesting or a huge payload is refused without a crash, within the
// receipt's size bound.
func TestAttackReceiptDeepAndLarge(t *testing.T) {
	k := mustKey(t, KeyES256)
	deep := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	large := `{"type":"` + strings.Repeat("x", maxReceipt) + `"}`
	for name, payload := range map[string]string{"deep": deep, "large": large} {
		_, err := VerifyReceipt([]byte(signPayload(t, k, []byte(payload))), verifyOpts(k.Public()))
		var ref *Refusal
		if !errors.As(err, &ref) {
			t.Errorf("%s payload: err %v, want a refusal", name, err)
		}
	}
}

// catalogueReport is a report of our real catalogue's producer tests up to
// level, keeping those keep says, every one passed.
func catalogueReport(level Level, keep func(i int, t Test) bool) *Report {
	r := sampleReport(level)
	r.Suite.Catalogue = CatalogueHash()
	for i, tt := range ProducerTests() {
		if tt.Level <= level && keep(i, tt) {
			r.Results = append(r.Results, Result{Test: tt, Status: Pass, Detail: "seen"})
		}
	}
	return r
}

// A receipt that names our catalogue must hold the result of every test of
// that catalogue up to the level it tested, each once and at its level:
// one passed test per level does not make Level 3, and a test listed twice
// or moved to another level does not count.
func TestAttackReceiptSubsetOfCatalogue(t *testing.T) {
	k := mustKey(t, KeyES256)
	sign := func(r *Report, edit func(*Receipt)) string { return signedReport(t, k, r, edit) }
	all := func(int, Test) bool { return true }
	if _, err := VerifyReceipt([]byte(sign(catalogueReport(3, all), nil)), verifyOpts(k.Public())); err != nil {
		t.Fatalf("a receipt of the whole catalogue is refused: %v", err)
	}
	seen := map[Level]bool{}
	onePerLevel := func(_ int, tt Test) bool {
		if seen[tt.Level] {
			return false
		}
		seen[tt.Level] = true
		return true
	}
	for name, jws := range map[string]string{
		"one test per level":  sign(catalogueReport(3, onePerLevel), nil),
		"first test left out": sign(catalogueReport(3, func(i int, _ Test) bool { return i > 0 }), nil),
		"a test listed twice": sign(catalogueReport(3, all), func(rc *Receipt) {
			rc.Results = append(rc.Results, rc.Results[0])
			rc.Summary.Total++
			rc.Summary.Passed++
		}),
		"a level-3 test said to be level 1": sign(catalogueReport(1, all), func(rc *Receipt) {
			for _, tt := range ProducerTests() {
				if tt.Level == 3 {
					rc.Results = append(rc.Results, ResultStatus{ID: tt.ID, Level: 1, Status: Pass})
					rc.Summary.Total++
					rc.Summary.Passed++
					break
				}
			}
		}),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := VerifyReceipt([]byte(jws), verifyOpts(k.Public()))
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("accepted (err %v), want a refusal", err)
			}
			t.Logf("refused: %s", ref.Reason)
		})
	}
}

// A trusted key is named by its own thumbprint, never by the kid a JWK file
// says: a key file that claims another key's kid does not take its place,
// and a receipt signed by that other key is refused.
func TestAttackReceiptKidClaimedByAnotherKey(t *testing.T) {
	signer := mustKey(t, KeyES256)
	liar := mustKey(t, KeyES256)
	jwk := jose.JSONWebKey{Key: liar.Public().key, KeyID: signer.KeyID(), Algorithm: "ES256", Use: "sig"}
	b, err := jwk.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := ParsePublicKey(b)
	if err != nil {
		t.Fatal(err)
	}
	if trusted.KeyID() == signer.KeyID() {
		t.Fatalf("the JWK took the kid it claims, %s", trusted.KeyID())
	}
	_, err = VerifyReceipt([]byte(signed(t, signer, nil)), verifyOpts(trusted))
	var ref *Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("a receipt of another key verified against a key claiming its kid (err %v)", err)
	}
}
