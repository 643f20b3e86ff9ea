package manifest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/producer"
)

// FuzzParseManifest: any input is decoded or refused with a
// Error; what is accepted names an agent and valid levels.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(testManifest))
	f.Add([]byte(`{"agent_id":"a","extensions_supported":[{"uri":"u"}],"exp":1}`))
	f.Add([]byte(`{"agent_id":null}`))
	f.Add([]byte(`[1,2`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := manifest.Parse(b)
		if err != nil {
			var me *manifest.Error
			if !errors.As(err, &me) || me.Words == "" {
				t.Fatalf("error without words: %v", err)
			}
			return
		}
		if m.AgentID == "" {
			t.Fatal("accepted a manifest without agent_id")
		}
		for _, l := range m.ConformanceLevels {
			if l < 1 || l > 3 {
				t.Fatalf("accepted level %d", l)
			}
		}
	})
}

// FuzzVerifyManifest: nothing but a JWS by the trusted key verifies.
func FuzzVerifyManifest(f *testing.F) {
	k, err := producer.NewManifestKey("ES256")
	if err != nil {
		f.Fatal(err)
	}
	keys, err := manifest.LoadKeys("", "")
	if err != nil {
		f.Fatal(err)
	}
	for _, fault := range []producer.ManifestFault{producer.ManifestHonest, producer.ManifestForged, producer.ManifestAlgNone, producer.ManifestHS256} {
		s, err := producer.SignManifest([]byte(testManifest), k, fault)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s)
	}
	f.Add(`{"payload":"e30","signatures":[{"protected":"eyJhbGciOiJFUzI1NiJ9","signature":"AA"}]}`)
	f.Fuzz(func(t *testing.T, jws string) {
		// No key is trusted, so nothing may verify.
		if sm, err := manifest.Verify(jws, keys, time.Now()); err == nil {
			t.Fatalf("verified %+v with no trusted key", sm)
		}
	})
}

// FuzzParseManifestKey: whatever is accepted is a public key with a kid.
func FuzzParseManifestKey(f *testing.F) {
	k, err := producer.NewManifestKey("EdDSA")
	if err != nil {
		f.Fatal(err)
	}
	pub, err := k.PublicJWK().MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pub)
	f.Add([]byte(`{"kty":"oct","k":"c2VjcmV0"}`))
	f.Add([]byte(`{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		jwk, err := manifest.ParseKey(b)
		if err != nil {
			return
		}
		if !jwk.IsPublic() || jwk.KeyID == "" || !jwk.Valid() {
			t.Fatalf("accepted %+v", jwk)
		}
	})
}
