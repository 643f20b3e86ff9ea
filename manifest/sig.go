package manifest

// manifest_sig.go: signed manifests (spec §10.4): the keys a subscriber
// trusts and the verification of a JWS whose payload is a manifest.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/protocol"
)

// Algorithms are the only signature algorithms accepted on a
// manifest: never "none", never an HMAC.
var Algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA}

// minRSABits is the smallest RSA key accepted.
const minRSABits = 2048

// Reasons a signed manifest is refused; Verify's errors wrap one.
var (
	ErrNotJWS       = errors.New("manifest: the signed manifest is not a JWS")
	ErrAlgNone      = errors.New("manifest: the signed manifest uses alg none")
	ErrAlgHMAC      = errors.New("manifest: the signed manifest uses an HMAC")
	ErrAlgorithm    = errors.New("manifest: the signed manifest's algorithm is not allowed")
	ErrUnknownKey   = errors.New("manifest: the signed manifest's key is not trusted")
	ErrBadSignature = errors.New("manifest: the signed manifest's signature does not verify")
	ErrExpired      = errors.New("manifest: the signed manifest has expired")
)

// Keys are the public keys a subscriber trusts to sign manifests:
// keys by kid from a directory, and optionally one pinned key that every
// manifest must be signed with. The zero value trusts no key.
type Keys struct {
	byKID  map[string]jose.JSONWebKey
	pinned *jose.JSONWebKey
}

// Len is how many keys are trusted.
func (k *Keys) Len() int {
	if k == nil {
		return 0
	}
	n := len(k.byKID)
	if k.pinned != nil {
		n++
	}
	return n
}

// Pinned reports whether a pinned key replaces the directory.
func (k *Keys) Pinned() bool { return k != nil && k.pinned != nil }

// ParseKey reads one public JWK. Its kid is the JWK's own "kid",
// or its RFC 7638 thumbprint when it has none. Private keys, symmetric
// keys, and curves or sizes unfit for ES256, RS256 or EdDSA are refused.
func ParseKey(b []byte) (jose.JSONWebKey, error) {
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(b); err != nil {
		return jwk, fmt.Errorf("not a JSON Web Key: %w", err)
	}
	if !jwk.IsPublic() {
		return jwk, errors.New("it holds a private or symmetric key; give the public key only")
	}
	switch k := jwk.Key.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return jwk, errors.New("an EC key must be on P-256 (ES256)")
		}
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return jwk, fmt.Errorf("an RSA key must have at least %d bits", minRSABits)
		}
	case ed25519.PublicKey:
	default:
		return jwk, fmt.Errorf("key type %T is not P-256, RSA or Ed25519", jwk.Key)
	}
	if jwk.KeyID == "" {
		tp, err := jwk.Thumbprint(crypto.SHA256)
		if err != nil {
			return jwk, fmt.Errorf("thumbprint: %w", err)
		}
		jwk.KeyID = base64.RawURLEncoding.EncodeToString(tp)
	}
	return jwk, nil
}

// LoadKeys reads the trusted keys: every *.jwk and *.json file in
// dir (a missing dir holds no keys; "" means none), each a JWK or a JWK set
// {"keys":[…]}; and, if pinned is not "", that one JWK file, which then is
// the only key accepted.
func LoadKeys(dir, pinned string) (*Keys, error) {
	ks := &Keys{byKID: map[string]jose.JSONWebKey{}}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("trusted manifest keys: %w", err)
		}
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.IsDir() || ext != ".jwk" && ext != ".json" {
				continue
			}
			path := filepath.Join(dir, e.Name())
			keys, err := readKeyFile(path)
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				ks.byKID[k.KeyID] = k
			}
		}
	}
	if pinned != "" {
		keys, err := readKeyFile(pinned)
		if err != nil {
			return nil, err
		}
		if len(keys) != 1 {
			return nil, fmt.Errorf("manifest key %s: holds %d keys; pin exactly one", pinned, len(keys))
		}
		ks.pinned = &keys[0]
	}
	return ks, nil
}

// readKeyFile reads a JWK or a JWK set.
func readKeyFile(path string) ([]jose.JSONWebKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest key: %w", err)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	raws := []json.RawMessage{b}
	if json.Unmarshal(b, &set) == nil && set.Keys != nil {
		raws = set.Keys
	}
	var out []jose.JSONWebKey
	for i, r := range raws {
		k, err := ParseKey(r)
		if err != nil {
			if len(raws) > 1 {
				return nil, fmt.Errorf("manifest key %s, key %d: %w", path, i+1, err)
			}
			return nil, fmt.Errorf("manifest key %s: %w", path, err)
		}
		out = append(out, k)
	}
	return out, nil
}

// lookup finds the key for a signature naming kid.
func (k *Keys) lookup(kid string) (jose.JSONWebKey, error) {
	if k == nil {
		k = &Keys{}
	}
	if k.pinned != nil {
		if kid != "" && k.pinned.KeyID != kid {
			return jose.JSONWebKey{}, manifestFail(ErrUnknownKey, "The producer's manifest was signed by key %s, not by your pinned key %s.",
				protocol.Line(kid), k.pinned.KeyID)
		}
		return *k.pinned, nil
	}
	if kid == "" {
		return jose.JSONWebKey{}, manifestFail(ErrUnknownKey, "The producer's manifest is signed, but its signature names no key (no kid) and no key is pinned.")
	}
	key, ok := k.byKID[kid]
	if !ok {
		return jose.JSONWebKey{}, manifestFail(ErrUnknownKey, "The producer's manifest was signed by key %s, which is not among your trusted keys.",
			protocol.Line(kid))
	}
	return key, nil
}

// Signed is a manifest whose signature verified.
type Signed struct {
	*Claims
	KID string                  // the key that signed it
	Alg jose.SignatureAlgorithm // its algorithm
}

// Verify checks a JWS (compact or JSON serialization) whose payload
// is a manifest: one signature, an algorithm from Algorithms, a key
// the subscriber trusts (by kid, or the pinned key), a valid signature, a
// payload Parse accepts, and no passed expiry.
func Verify(jws string, keys *Keys, now time.Time) (*Signed, error) {
	if len(jws) > MaxBytes*2 {
		return nil, manifestFail(ErrNotJWS, "The producer's signed manifest is %d bytes long, too long to be one.", len(jws))
	}
	jws = strings.TrimSpace(jws)
	if alg := headerAlg(jws); alg != "" {
		switch {
		case strings.EqualFold(alg, "none"):
			return nil, manifestFail(ErrAlgNone, "The producer's manifest says it is signed with alg none, which means not signed at all; it is refused.")
		case strings.HasPrefix(strings.ToUpper(alg), "HS"):
			return nil, manifestFail(ErrAlgHMAC, "The producer's manifest is signed with %s, a shared-secret code that proves nothing about who made it; it is refused.", protocol.Line(alg))
		case !slices.Contains(Algorithms, jose.SignatureAlgorithm(alg)):
			return nil, manifestFail(ErrAlgorithm, "The producer's manifest is signed with %s, which is not allowed (only ES256, RS256 and EdDSA are); it is refused.", protocol.Line(alg))
		}
	}
	sig, err := jose.ParseSigned(jws, Algorithms)
	if err != nil {
		return nil, manifestFail(ErrNotJWS, "The producer's signed manifest is not a valid signature (JWS): %s.", protocol.Line(err.Error()))
	}
	if len(sig.Signatures) != 1 {
		return nil, manifestFail(ErrNotJWS, "The producer's signed manifest carries %d signatures; exactly one is accepted.", len(sig.Signatures))
	}
	h := sig.Signatures[0].Protected
	if h.Algorithm == "" {
		return nil, manifestFail(ErrNotJWS, "The producer's signed manifest does not protect its algorithm (no alg in the protected header); it is refused.")
	}
	key, err := keys.lookup(h.KeyID)
	if err != nil {
		return nil, err
	}
	payload, err := sig.Verify(key)
	if err != nil {
		return nil, manifestFail(ErrBadSignature, "The producer's manifest is forged or was altered: its signature does not match key %s.", key.KeyID)
	}
	m, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	if m.Expired(now) {
		return nil, manifestFail(ErrExpired, "The producer's manifest expired on %s.", time.Unix(m.Expires, 0).UTC().Format(time.RFC3339))
	}
	return &Signed{Claims: m, KID: key.KeyID, Alg: jose.SignatureAlgorithm(h.Algorithm)}, nil
}

// Error is a manifest refused or not found: Words says why in one
// sentence for the user; Reason is one of the Err… values of this package.
type Error struct {
	Reason error
	Words  string
}

func (e *Error) Error() string { return e.Reason.Error() + ": " + e.Words }
func (e *Error) Unwrap() error { return e.Reason }

func manifestFail(reason error, format string, args ...any) error {
	return &Error{Reason: reason, Words: fmt.Sprintf(format, args...)}
}

// headerAlg reads "alg" from a compact JWS's protected header without
// trusting anything else, so that the refusal can name it; "" when it
// cannot be read (ParseSigned then says why).
func headerAlg(jws string) string {
	var hdr string
	if strings.HasPrefix(jws, "{") {
		var j struct {
			Protected  string `json:"protected"`
			Signatures []struct {
				Protected string `json:"protected"`
			} `json:"signatures"`
		}
		if json.Unmarshal([]byte(jws), &j) != nil {
			return ""
		}
		hdr = j.Protected
		if hdr == "" && len(j.Signatures) > 0 {
			hdr = j.Signatures[0].Protected
		}
	} else {
		hdr, _, _ = strings.Cut(jws, ".")
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(hdr, "="))
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Alg
}
