package producer

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/go-jose/go-jose/v4"
)

func TestSignedManifest(t *testing.T) {
	o := loadOfficial(t)
	for _, alg := range []string{"ES256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			key, err := NewManifestKey(alg)
			if err != nil {
				t.Fatal(err)
			}
			_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), ManifestKey: key})
			code, _, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
				"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "x",
				"capabilities": map[string]any{"accept_signed_manifests_only": true},
			})
			if code != http.StatusCreated {
				t.Fatalf("%d %s", code, body)
			}
			if err := o.validate(t, body); err != nil {
				t.Errorf("%s\n%v", body, err)
			}
			var acc struct {
				Signed string `json:"signed_manifest"`
			}
			if err := json.Unmarshal(body, &acc); err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get(srv.URL + protocol.PathManifest)
			if err != nil {
				t.Fatal(err)
			}
			served, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "application/jose" {
				t.Errorf("served as %q", ct)
			}
			for _, jws := range []string{acc.Signed, string(served)} {
				sig, err := jose.ParseSigned(jws, []jose.SignatureAlgorithm{key.Alg()})
				if err != nil {
					t.Fatalf("%q: %v", jws, err)
				}
				if kid := sig.Signatures[0].Protected.KeyID; kid != key.KID {
					t.Errorf("kid %q, want %q", kid, key.KID)
				}
				payload, err := sig.Verify(key.Signer.Public())
				if err != nil || !strings.Contains(string(payload), `"agent_id":"aaep-term-demo"`) {
					t.Errorf("payload %s: %v", payload, err)
				}
			}
		})
	}
	// A producer told not to sign refuses a subscriber that requires it.
	key, err := NewManifestKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), ManifestKey: key, ManifestFault: ManifestUnsigned})
	code, _, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "x",
		"capabilities": map[string]any{"accept_signed_manifests_only": true},
	})
	if code != http.StatusBadRequest || !strings.Contains(string(body), "manifest_signature_required") {
		t.Errorf("%d %s", code, body)
	}
	if _, err := NewManifestKey("HS256"); err == nil {
		t.Error("made an HS256 manifest key")
	}
}
