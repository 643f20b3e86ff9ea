package manifest_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

const testManifest = `{"type":"aaep:producer.manifest","agent_id":"planner","agent_name":"Planner",
"agent_version":"1.2.0","aaep_versions_supported":["1.0.0"],"conformance_levels_supported":[1,2,3],
"transports_supported":["sse","websocket","stdio-jsonrpc"],"languages_supported":["en-US","yo-NG"],
"event_types_emitted":["aaep:agent.session.*"],"extensions_supported":["https://example.org/x/v1",{"namespace":"urn:y"}]}`

func newKey(t *testing.T, alg string) *producer.ManifestKey {
	t.Helper()
	k, err := producer.NewManifestKey(alg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// trust writes k's public JWK into a fresh trusted-keys directory.
func trust(t *testing.T, keys ...*producer.ManifestKey) *manifest.Keys {
	t.Helper()
	dir := t.TempDir()
	for i, k := range keys {
		b, err := json.Marshal(k.PublicJWK())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".jwk"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Files of other kinds are ignored.
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	ks, err := manifest.LoadKeys(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if ks.Len() != len(keys) {
		t.Fatalf("loaded %d keys, want %d", ks.Len(), len(keys))
	}
	return ks
}

func sign(t *testing.T, k *producer.ManifestKey, fault producer.ManifestFault, doc string) string {
	t.Helper()
	s, err := producer.SignManifest([]byte(doc), k, fault)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseManifest(t *testing.T) {
	m, err := manifest.Parse([]byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.AgentID != "planner" || m.AgentName != "Planner" || len(m.ConformanceLevels) != 3 ||
		strings.Join(m.Extensions, " ") != "https://example.org/x/v1 urn:y" {
		t.Errorf("parsed %+v", m)
	}
	for _, tc := range []struct{ doc, want string }{
		{`[]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`{"agent_name":"x"}`, "names no agent_id"},
		{`{"agent_id":""}`, "names no agent_id"},
		{`{"agent_id":7}`, "agent_id has the wrong type"},
		{`{"agent_id":"a","type":"aaep:agent.session.started"}`, "its type is aaep:agent.session.started"},
		{`{"agent_id":"a","conformance_levels_supported":[4]}`, "conformance level 4"},
		{`{"agent_id":"a","conformance_levels_supported":"3"}`, "conformance_levels_supported has the wrong type"},
		{`{"agent_id":"a","extensions_supported":[1]}`, "neither a string nor an object"},
		{`{"agent_id":"a","extensions_supported":{}}`, "extensions_supported has the wrong type"},
		{`{"agent_id":"a","exp":"soon"}`, "exp has the wrong type"},
		{`{"agent_id":"` + strings.Repeat("a", manifest.MaxBytes) + `"}`, "more than the"},
	} {
		_, err := manifest.Parse([]byte(tc.doc))
		var me *manifest.Error
		if !errors.As(err, &me) || !errors.Is(err, manifest.ErrMalformed) || !strings.Contains(me.Words, tc.want) {
			t.Errorf("%.60s: got %v, want words with %q", tc.doc, err, tc.want)
		}
	}
	// The full-URI type is the same type.
	if _, err := manifest.Parse([]byte(`{"agent_id":"a","type":"https://aaep-protocol.org/types/producer.manifest"}`)); err != nil {
		t.Error(err)
	}
}

func TestVerifyManifest(t *testing.T) {
	es, ed := newKey(t, "ES256"), newKey(t, "EdDSA")
	keys := trust(t, es, ed)
	now := time.Unix(1_800_000_000, 0)
	expired := strings.Replace(testManifest, `"agent_id"`, `"exp":1700000000,"agent_id"`, 1)
	future := strings.Replace(testManifest, `"agent_id"`, `"exp":1900000000,"agent_id"`, 1)
	for _, tc := range []struct {
		name   string
		jws    string
		reason error
		words  string
	}{
		{"ES256", sign(t, es, producer.ManifestHonest, testManifest), nil, ""},
		{"EdDSA", sign(t, ed, producer.ManifestHonest, testManifest), nil, ""},
		{"not yet expired", sign(t, es, producer.ManifestHonest, future), nil, ""},
		{"forged", sign(t, es, producer.ManifestForged, testManifest), manifest.ErrBadSignature,
			"is forged or was altered: its signature does not match key " + es.KID},
		{"wrong key", sign(t, es, producer.ManifestWrongKey, testManifest), manifest.ErrUnknownKey,
			"which is not among your trusted keys"},
		{"alg none", sign(t, es, producer.ManifestAlgNone, testManifest), manifest.ErrAlgNone,
			"alg none, which means not signed at all"},
		{"HS256", sign(t, es, producer.ManifestHS256, testManifest), manifest.ErrAlgHMAC,
			"signed with HS256, a shared-secret code"},
		{"expired", sign(t, es, producer.ManifestHonest, expired), manifest.ErrExpired,
			"expired on 2023-11-14T22:13:20Z"},
		{"not a JWS", testManifest, manifest.ErrNotJWS, "not a valid signature (JWS)"},
		{"garbage", "a.b.c", manifest.ErrNotJWS, "not a valid signature (JWS)"},
		{"bad payload", sign(t, es, producer.ManifestHonest, `{"agent_name":"x"}`), manifest.ErrMalformed,
			"names no agent_id"},
		{"PS256", signOther(t, jose.PS256), manifest.ErrAlgorithm, "PS256, which is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm, err := manifest.Verify(tc.jws, keys, now)
			if tc.reason == nil {
				if err != nil {
					t.Fatal(err)
				}
				if sm.AgentID != "planner" || sm.KID == "" {
					t.Errorf("verified %+v", sm)
				}
				return
			}
			var me *manifest.Error
			if !errors.Is(err, tc.reason) || !errors.As(err, &me) || !strings.Contains(me.Words, tc.words) {
				t.Fatalf("got %v, want %v with %q", err, tc.reason, tc.words)
			}
		})
	}
}

// signOther signs with an RSA key and alg (allowed or not).
func signOther(t *testing.T, alg jose.SignatureAlgorithm) string {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: priv, KeyID: "rsa1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign([]byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerifyManifestPinned(t *testing.T) {
	es, other := newKey(t, "ES256"), newKey(t, "ES256")
	dir := t.TempDir()
	pin := filepath.Join(dir, "pin.jwk")
	b, _ := json.Marshal(es.PublicJWK())
	if err := os.WriteFile(pin, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The directory trusts the other key; the pin alone counts.
	keys, err := manifest.LoadKeys(writeKeyDir(t, other), pin)
	if err != nil {
		t.Fatal(err)
	}
	if !keys.Pinned() {
		t.Fatal("not pinned")
	}
	if _, err := manifest.Verify(sign(t, es, producer.ManifestHonest, testManifest), keys, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err = manifest.Verify(sign(t, other, producer.ManifestHonest, testManifest), keys, time.Now())
	var me *manifest.Error
	if !errors.As(err, &me) || !strings.Contains(me.Words, "not by your pinned key "+es.KID) {
		t.Fatalf("got %v", err)
	}
}

func writeKeyDir(t *testing.T, k *producer.ManifestKey) string {
	t.Helper()
	dir := t.TempDir()
	b, _ := json.Marshal(map[string]any{"keys": []jose.JSONWebKey{k.PublicJWK()}})
	if err := os.WriteFile(filepath.Join(dir, "set.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadManifestKeysRefuses(t *testing.T) {
	es := newKey(t, "ES256")
	priv, _ := json.Marshal(jose.JSONWebKey{Key: es.Signer, KeyID: "x"})
	sym, _ := json.Marshal(jose.JSONWebKey{Key: []byte("secret-secret-secret"), KeyID: "h"})
	for name, body := range map[string][]byte{
		"private":   priv,
		"symmetric": sym,
		"not json":  []byte("hello"),
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "k.jwk"), body, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := manifest.LoadKeys(dir, ""); err == nil || !strings.Contains(err.Error(), "k.jwk") {
			t.Errorf("%s: got %v, want an error naming the file", name, err)
		}
	}
	if ks, err := manifest.LoadKeys(filepath.Join(t.TempDir(), "missing"), ""); err != nil || ks.Len() != 0 {
		t.Errorf("missing dir: %v, %d keys", err, ks.Len())
	}
}

func TestManifestCheck(t *testing.T) {
	m, err := manifest.Parse([]byte(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		off  manifest.Offering
		want []string
		err  error
	}{
		{"consistent", manifest.Offering{AgentID: "planner", Transport: "stdio", Levels: []int{1, 2, 3}, Languages: []string{"yo"}}, nil, nil},
		{"other agent", manifest.Offering{AgentID: "bank"}, nil, manifest.ErrAgentMismatch},
		{"transport", manifest.Offering{AgentID: "planner", Transport: "unix"}, []string{"over unix, which its manifest does not list"}, nil},
		{"language", manifest.Offering{AgentID: "planner", Languages: []string{"fr-FR"}}, []string{"language fr-FR"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Check(tc.off)
			if !errors.Is(err, tc.err) || len(got) != len(tc.want) {
				t.Fatalf("got %q, %v", got, err)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
	for typ, want := range map[string]bool{
		"aaep:agent.session.started":                      true,
		"https://aaep-protocol.org/types/agent.session.x": true,
		"aaep:agent.tool.invoked":                         false,
		"aaep:agent.sessionfoo":                           false,
	} {
		if m.Emits(typ) != want {
			t.Errorf("Emits(%q) = %v", typ, !want)
		}
	}
	lvl, _ := manifest.Parse([]byte(`{"agent_id":"a","conformance_levels_supported":[1,2]}`))
	if got, _ := lvl.Check(manifest.Offering{AgentID: "a"}); len(got) != 1 || !strings.Contains(got[0], "conformance level 3") {
		t.Errorf("level 3 not claimed: %q", got)
	}
}

// TestFind fetches manifests from a real loopback producer.
func TestFind(t *testing.T) {
	es := newKey(t, "ES256")
	scen := []producer.Scenario{{Name: "s", Agent: producer.Agent{ID: "planner", Name: "Planner"}, Language: "en-US"}}
	serve := func(fault producer.ManifestFault, key *producer.ManifestKey) string {
		p := producer.New(producer.Options{Scenarios: scen, ManifestKey: key, ManifestFault: fault})
		srv := httptest.NewServer(p)
		t.Cleanup(func() { srv.Close(); p.Close() })
		return srv.URL
	}
	f := &manifest.Finder{Keys: trust(t, es)}
	off := manifest.Offering{AgentID: "planner", Transport: "sse", Levels: []int{1, 2, 3}, Languages: []string{"en-US"}}
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		src      manifest.Sources
		verified bool
		reason   error
		sentence string
	}{
		{"signed at well-known", manifest.Sources{Endpoint: serve(producer.ManifestHonest, es)}, true, nil,
			"The producer's manifest is signed by key " + es.KID + " and verified."},
		{"signed via ws endpoint", manifest.Sources{Endpoint: strings.Replace(serve(producer.ManifestHonest, es), "http", "ws", 1) + "/aaep/v1/ws"}, true, nil,
			"and verified."},
		{"unsigned", manifest.Sources{Endpoint: serve(producer.ManifestHonest, nil)}, false, manifest.ErrUnsigned,
			"The producer's manifest is not signed."},
		{"forged at URI", manifest.Sources{URI: serve(producer.ManifestForged, es) + protocol.PathManifest}, false,
			manifest.ErrBadSignature, "forged or was altered"},
		{"other agent", manifest.Sources{Endpoint: serve(producer.ManifestOtherAgent, es)}, false, manifest.ErrAgentMismatch,
			"is for agent someone-else, but agent planner accepted the subscription"},
		{"no manifest anywhere", manifest.Sources{Endpoint: "unix:/tmp/x.sock"}, false, manifest.ErrNotFound,
			"gives no manifest"},
		{"404", manifest.Sources{URI: serve(producer.ManifestHonest, nil) + "/nothing-here"}, false, manifest.ErrNotFound,
			"publishes no manifest at"},
		{"not http", manifest.Sources{URI: "file:///etc/passwd"}, false, manifest.ErrFetch,
			"not an http:// or https:// address"},
		{"inline wins", manifest.Sources{Inline: sign(t, es, producer.ManifestAlgNone, testManifest), Endpoint: serve(producer.ManifestHonest, es)},
			false, manifest.ErrAlgNone, "alg none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.Find(ctx, tc.src, off)
			if r.Verified != tc.verified || !errors.Is(r.Err, tc.reason) || !strings.Contains(r.Sentence(), tc.sentence) {
				t.Fatalf("verified %v, err %v, sentence %q; want %v, %v, %q", r.Verified, r.Err, r.Sentence(), tc.verified, tc.reason, tc.sentence)
			}
		})
	}
	// A forged manifest's claims are still read, to be shown as claims.
	forged := f.Find(ctx, manifest.Sources{Endpoint: serve(producer.ManifestForged, es)}, off)
	if forged.Verified || forged.Claims == nil || forged.Claims.AgentName != "An Agent You Trust" {
		t.Errorf("forged: %+v", forged)
	}
	// A manifest whose claims disagree is not verified, though signed.
	r := f.Find(ctx, manifest.Sources{Endpoint: serve(producer.ManifestHonest, es)}, manifest.Offering{AgentID: "planner", Languages: []string{"fr"}})
	if r.Verified || !errors.Is(r.Err, manifest.ErrDisagreeing) || !strings.Contains(r.Sentence(), "language fr") {
		t.Errorf("disagreeing: %v %q", r.Err, r.Sentence())
	}
	// A server that hangs is given up on, and the person is told so in
	// words, not with Go's "context deadline exceeded"; so is a producer
	// whose GetManifest hangs.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	for _, slow := range []*manifest.Finder{
		{Timeout: 50 * time.Millisecond},
		{Timeout: 50 * time.Millisecond, Ask: func(ctx context.Context) ([]byte, error) { <-ctx.Done(); return nil, ctx.Err() }},
	} {
		src := manifest.Sources{Endpoint: hang.URL}
		if slow.Ask != nil {
			src = manifest.Sources{Endpoint: "grpc://127.0.0.1:1"}
		}
		r := slow.Find(ctx, src, off)
		if s := r.Sentence(); !errors.Is(r.Err, manifest.ErrFetch) || !strings.Contains(s, "it did not come within 50ms.") || strings.Contains(s, "deadline") {
			t.Errorf("hanging producer (asked %v): %v; said %q", slow.Ask != nil, r.Err, s)
		}
	}
	// The caller's own deadline, shorter than the Finder's bound, is not
	// told as the Finder's bound.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if s := f.Find(short, manifest.Sources{Endpoint: hang.URL}, off).Sentence(); strings.Contains(s, "did not come within") {
		t.Errorf("the caller's deadline told as the Finder's 10 s: %q", s)
	}
}

// TestFindAsk: a producer with no inline manifest and no address is asked
// through Ask (gRPC's GetManifest); what it answers is checked as a fetched
// manifest would be, and its errors are told sanitized.
func TestFindAsk(t *testing.T) {
	es := newKey(t, "ES256")
	off := manifest.Offering{AgentID: "planner", Transport: "sse", Levels: []int{1, 2, 3}, Languages: []string{"en-US"}}
	signed := sign(t, es, producer.ManifestHonest, testManifest)
	for _, tc := range []struct {
		name     string
		body     []byte
		err      error
		verified bool
		reason   error
		sentence string
	}{
		{"signed", []byte(signed), nil, true, nil, "and verified."},
		{"unsigned", []byte(testManifest), nil, false, manifest.ErrUnsigned, "is not signed"},
		{"none offered", nil, nil, false, manifest.ErrNotFound, "its GetManifest call offers none"},
		{"failed", nil, errors.New("UNAVAILABLE \x1b[2J"), false, manifest.ErrFetch, "GetManifest call failed: UNAVAILABLE ."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &manifest.Finder{Keys: trust(t, es), Ask: func(context.Context) ([]byte, error) { return tc.body, tc.err }}
			r := f.Find(context.Background(), manifest.Sources{Endpoint: "grpc://127.0.0.1:1"}, off)
			if r.Verified != tc.verified || !errors.Is(r.Err, tc.reason) || !strings.Contains(r.Sentence(), tc.sentence) ||
				r.From != manifest.FromAsked || strings.Contains(r.Sentence(), "\x1b") {
				t.Fatalf("verified %v, err %v, sentence %q, from %q", r.Verified, r.Err, r.Sentence(), r.From)
			}
		})
	}
}

// BenchmarkVerifyManifest: the cost of checking a signed manifest, which
// --require-signed-manifest waits for before going on.
func BenchmarkVerifyManifest(b *testing.B) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		b.Run(alg, func(b *testing.B) {
			k, err := producer.NewManifestKey(alg)
			if err != nil {
				b.Fatal(err)
			}
			jws, err := producer.SignManifest([]byte(testManifest), k, producer.ManifestHonest)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			pub, _ := json.Marshal(k.PublicJWK())
			if err := os.WriteFile(filepath.Join(dir, "k.jwk"), pub, 0o600); err != nil {
				b.Fatal(err)
			}
			keys, err := manifest.LoadKeys(dir, "")
			if err != nil {
				b.Fatal(err)
			}
			now := time.Now()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := manifest.Verify(jws, keys, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
