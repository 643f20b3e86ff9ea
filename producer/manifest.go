package producer

// This file holds the producer manifest (spec §5.10): the document, its
// signature (spec §10.4) when the producer has a key, and the faults tests
// ask for.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/protocol"
)

// ManifestKey signs the producer's manifest: an ECDSA P-256 key (ES256) or
// an Ed25519 key (EdDSA). KID names it in the signature; NewManifestKey
// sets it to the key's RFC 7638 thumbprint.
type ManifestKey struct {
	Signer crypto.Signer // *ecdsa.PrivateKey on P-256, or ed25519.PrivateKey
	KID    string
}

// NewManifestKey makes a key for alg, "ES256" or "EdDSA".
func NewManifestKey(alg string) (*ManifestKey, error) {
	var s crypto.Signer
	var err error
	switch alg {
	case "ES256":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "EdDSA":
		_, s, err = ed25519.GenerateKey(rand.Reader)
	default:
		return nil, fmt.Errorf("producer: manifest key algorithm %q is not ES256 or EdDSA", alg)
	}
	if err != nil {
		return nil, fmt.Errorf("producer: make a manifest key: %w", err)
	}
	k := &ManifestKey{Signer: s}
	jwk := k.PublicJWK()
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("producer: manifest key thumbprint: %w", err)
	}
	k.KID = base64.RawURLEncoding.EncodeToString(tp)
	return k, nil
}

// Alg is the JWS algorithm of the key.
func (k *ManifestKey) Alg() jose.SignatureAlgorithm {
	if _, ok := k.Signer.(ed25519.PrivateKey); ok {
		return jose.EdDSA
	}
	return jose.ES256
}

// PublicJWK is the public half, for a subscriber's trusted keys.
func (k *ManifestKey) PublicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.Signer.Public(), KeyID: k.KID, Algorithm: string(k.Alg()), Use: "sig"}
}

// ManifestFault makes the producer publish a bad manifest, for tests of
// subscribers. The zero value is an honest manifest.
type ManifestFault int

// Manifest faults. Every one but ManifestUnsigned still puts a
// signed_manifest in subscription.accepted and serves the JWS at the
// manifest URI, so a subscriber must see through it.
const (
	ManifestHonest     ManifestFault = iota
	ManifestUnsigned                 // no signature, even with a key
	ManifestForged                   // signed, then the payload changed
	ManifestWrongKey                 // signed by another key, named by its own kid
	ManifestAlgNone                  // "alg":"none" with the key's kid, no signature
	ManifestHS256                    // an HMAC with the key's kid
	ManifestOtherAgent               // honestly signed, but for another agent_id
	ManifestNarrow                   // honestly signed, but listing only the session events
)

// manifest is the manifest document.
func (p *Producer) manifest() map[string]any {
	a := p.agent()
	var types []string
	var walk func([]Step)
	walk = func(steps []Step) {
		for _, st := range steps {
			if !slices.Contains(types, st.Event.Type) {
				types = append(types, st.Event.Type)
			}
			walk(st.OnAccept)
			walk(st.OnReject)
			walk(st.OnAnswer)
			walk(st.OnTimeout)
		}
	}
	for _, sc := range p.opts.Scenarios {
		walk(sc.Steps)
	}
	slices.Sort(types)
	return map[string]any{
		"@context":                     protocol.ContextURL,
		"type":                         "aaep:producer.manifest",
		"agent_id":                     a.ID,
		"agent_version":                a.Version,
		"agent_name":                   a.Name,
		"aaep_versions_supported":      []string{protocol.Version},
		"conformance_levels_supported": []int{1, 2, 3},
		"transports_supported":         []string{"sse", "websocket", "stdio", "unix", "grpc"},
		"languages_supported":          p.langs,
		"event_types_emitted":          types,
		"extensions_supported":         []string{"urn:aaep-term:ext:signed-replies:v1"},
		"default_verbosity":            "normal",
		"max_concurrent_subscriptions": maxSubscriptions,
	}
}

// signsManifest reports whether subscriptions get a signed_manifest.
func (p *Producer) signsManifest() bool {
	return p.opts.ManifestKey != nil && p.opts.ManifestFault != ManifestUnsigned
}

// signedManifest is the manifest as a compact JWS, with the configured
// fault; "" when the producer does not sign.
func (p *Producer) signedManifest() string {
	if !p.signsManifest() {
		return ""
	}
	doc := p.manifest()
	switch p.opts.ManifestFault {
	case ManifestOtherAgent:
		doc["agent_id"] = "someone-else"
	case ManifestNarrow:
		doc["event_types_emitted"] = []string{"aaep:agent.session.*"}
	}
	payload, _ := json.Marshal(doc) // plain values always marshal
	s, err := SignManifest(payload, p.opts.ManifestKey, p.opts.ManifestFault)
	if err != nil {
		p.opts.Logf("producer: sign the manifest: %v", err)
		return ""
	}
	return s
}

// SignManifest signs payload with key as a compact JWS (protected header
// alg, kid, typ), spoiled as fault says. Tests use it to make manifests.
func SignManifest(payload []byte, key *ManifestKey, fault ManifestFault) (string, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	switch fault {
	case ManifestAlgNone:
		hdr, _ := json.Marshal(map[string]string{"alg": "none", "kid": key.KID})
		return b64(hdr) + "." + b64(payload) + ".", nil
	case ManifestHS256:
		hdr, _ := json.Marshal(map[string]string{"alg": "HS256", "kid": key.KID})
		input := b64(hdr) + "." + b64(payload)
		mac := hmac.New(sha256.New, []byte(key.KID)) // a "secret" anyone can know
		mac.Write([]byte(input))
		return input + "." + b64(mac.Sum(nil)), nil
	case ManifestWrongKey:
		other, err := NewManifestKey(string(key.Alg()))
		if err != nil {
			return "", err
		}
		return SignManifest(payload, other, ManifestHonest)
	}
	opts := (&jose.SignerOptions{}).WithType("aaep-manifest+jws")
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: key.Alg(), Key: jose.JSONWebKey{Key: key.Signer, KeyID: key.KID}}, opts)
	if err != nil {
		return "", fmt.Errorf("producer: manifest signer: %w", err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("producer: sign the manifest: %w", err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("producer: serialize the manifest: %w", err)
	}
	if fault == ManifestForged {
		parts := strings.Split(out, ".")
		var doc map[string]any
		_ = json.Unmarshal(payload, &doc)
		doc["agent_name"] = "An Agent You Trust"
		forged, _ := json.Marshal(doc)
		out = parts[0] + "." + b64(forged) + "." + parts[2]
	}
	return out, nil
}

// handleManifest serves the manifest: the JWS (application/jose) when the
// producer signs it, else the JSON document.
func (p *Producer) handleManifest(w http.ResponseWriter, r *http.Request) {
	if jws := p.signedManifest(); jws != "" {
		w.Header().Set("Content-Type", "application/jose")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(jws))
		return
	}
	writeJSON(w, http.StatusOK, p.manifest())
}
