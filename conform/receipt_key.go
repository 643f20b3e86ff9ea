package conform

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/internal/safefile"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// The signature algorithms of receipts: ES256 (ECDSA P-256) and EdDSA
// (Ed25519). Nothing else is signed or accepted; never "none", never HMAC.
var receiptAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}

// maxKeyFile bounds a key file read: a PEM or JWK key is a few hundred bytes.
const maxKeyFile = 64 << 10

// SigningKey is a private key that signs receipts.
type SigningKey struct {
	key crypto.Signer
	alg jose.SignatureAlgorithm
	kid string
	// Warning, if not empty, is a line for the user about the key file
	// (others can read it, and how to fix that).
	Warning string
}

// PublicKey is a key that verifies receipts.
type PublicKey struct {
	key    crypto.PublicKey
	alg    jose.SignatureAlgorithm
	kid    string
	Source string // the file it came from, for messages
}

// Alg is the key's algorithm: "ES256" or "EdDSA".
func (k *SigningKey) Alg() string { return string(k.alg) }

// KeyID is the key's RFC 7638 JWK thumbprint (SHA-256, base64url).
func (k *SigningKey) KeyID() string { return k.kid }

// Public is the key's public half.
func (k *SigningKey) Public() *PublicKey {
	return &PublicKey{key: k.key.Public(), alg: k.alg, kid: k.kid}
}

// KeyID is the key's RFC 7638 JWK thumbprint (SHA-256, base64url).
func (k *PublicKey) KeyID() string { return k.kid }

// Alg is the key's algorithm: "ES256" or "EdDSA".
func (k *PublicKey) Alg() string { return string(k.alg) }

// KeyType names a kind of key GenerateKey makes.
type KeyType string

// The key types.
const (
	KeyES256 KeyType = "ES256"
	KeyEdDSA KeyType = "EdDSA"
)

// GenerateKey makes a new signing key.
func GenerateKey(t KeyType) (*SigningKey, error) {
	var priv crypto.Signer
	var err error
	switch t {
	case KeyES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case KeyEdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		return nil, fmt.Errorf("conform: no key type %q: ES256 or EdDSA", t)
	}
	if err != nil {
		return nil, fmt.Errorf("conform: generate a key: %w", err)
	}
	return signingKey(priv)
}

// PrivatePEM is the key as a PEM "PRIVATE KEY" (PKCS #8) block.
func (k *SigningKey) PrivatePEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.key)
	if err != nil {
		return nil, fmt.Errorf("conform: encode the private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// PublicPEM is the key's public half as a PEM "PUBLIC KEY" (PKIX) block.
func (k *SigningKey) PublicPEM() ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(k.key.Public())
	if err != nil {
		return nil, fmt.Errorf("conform: encode the public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// LoadSigningKey reads a private key file: PEM ("PRIVATE KEY", PKCS #8, or
// "EC PRIVATE KEY", SEC 1) or a JWK. A symbolic link is refused; a file
// others can read gives a Warning.
func LoadSigningKey(path string) (*SigningKey, error) {
	b, warn, err := safefile.ReadPrivate(path, maxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("conform: read the signing key: %w", err)
	}
	k, err := ParseSigningKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if warn != "" {
		k.Warning = "warning: anyone who can read your receipt-signing key can sign receipts as you, and " + warn + "."
	}
	return k, nil
}

// ParseSigningKey reads a private key: PEM PKCS #8 or SEC 1, or a JWK. Only
// P-256 ECDSA and Ed25519 keys are taken; a symmetric (HMAC) key, an RSA key
// or a public key alone is refused, saying why.
func ParseSigningKey(b []byte) (*SigningKey, error) {
	parsed, err := parseKey(b)
	if err != nil {
		return nil, err
	}
	priv, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, errors.New("this is a public key; signing needs the private key")
	}
	return signingKey(priv)
}

func signingKey(priv crypto.Signer) (*SigningKey, error) {
	pub, err := publicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	return &SigningKey{key: priv, alg: pub.alg, kid: pub.kid}, nil
}

// ParsePublicKey reads a key that verifies receipts: PEM "PUBLIC KEY"
// (PKIX), a private key (its public half is used) or a JWK.
func ParsePublicKey(b []byte) (*PublicKey, error) {
	parsed, err := parseKey(b)
	if err != nil {
		return nil, err
	}
	if s, ok := parsed.(crypto.Signer); ok {
		parsed = s.Public()
	}
	return publicKey(parsed)
}

// LoadPublicKey reads a verifying key file (see ParsePublicKey).
func LoadPublicKey(path string) (*PublicKey, error) {
	b, err := readSmall(path)
	if err != nil {
		return nil, err
	}
	k, err := ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k.Source = path
	return k, nil
}

// LoadTrustedKeys reads every key file in dir (names ending .pem, .pub or
// .jwk, .json). A file that is not a usable key is reported in problems
// and left out; only a directory that cannot be read is an error.
func LoadTrustedKeys(dir string) (keys []*PublicKey, problems []error, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("conform: read the trusted keys: %w", err)
	}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || !slices.Contains([]string{".pem", ".pub", ".jwk", ".json"}, ext) {
			continue
		}
		k, err := LoadPublicKey(filepath.Join(dir, e.Name()))
		if err != nil {
			problems = append(problems, err)
			continue
		}
		keys = append(keys, k)
	}
	return keys, problems, nil
}

func readSmall(path string) ([]byte, error) { return readLimited(path, maxKeyFile, "key") }

// ReadReceipt reads a receipt file, refusing one too large to be a receipt.
func ReadReceipt(path string) ([]byte, error) { return readLimited(path, maxReceipt, "receipt") }

// ReadReport reads a JSON report file, refusing one too large.
func ReadReport(path string) ([]byte, error) { return readLimited(path, maxReport, "report") }

// maxReport bounds a JSON report read: evidence makes them large, not this large.
const maxReport = 256 << 20

// readLimited reads at most limit bytes of the file at path; what names it
// in errors.
func readLimited(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("conform: read the %s: %w", what, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("conform: read the %s %s: %w", what, path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("conform: the file %s is too large to be a %s", path, what)
	}
	return b, nil
}

// parseKey reads a PEM block or a JWK into a crypto key.
func parseKey(b []byte) (any, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		var jwk jose.JSONWebKey
		if err := json.Unmarshal(t, &jwk); err != nil {
			if bytes.Contains(t, []byte(`"oct"`)) {
				return nil, errHMACKey
			}
			return nil, fmt.Errorf("not a usable JWK: %w", err)
		}
		if _, ok := jwk.Key.([]byte); ok {
			return nil, errHMACKey
		}
		return jwk.Key, nil
	}
	parsed, err := sigrpl.ParsePEMKey(b, true)
	switch {
	case errors.Is(err, sigrpl.ErrNoPEM):
		return nil, errors.New("the file holds neither a PEM block nor a JWK")
	case err != nil:
		return nil, fmt.Errorf("the file %w", err)
	}
	return parsed, nil
}

var errHMACKey = errors.New("a shared secret (HMAC) key cannot sign or verify receipts: anyone holding it could forge one; use an ES256 or Ed25519 key")

// publicKey checks pub is a P-256 or Ed25519 key and gives its algorithm and
// thumbprint.
func publicKey(pub any) (*PublicKey, error) {
	var alg jose.SignatureAlgorithm
	switch p := pub.(type) {
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return nil, fmt.Errorf("an ECDSA key on %s: receipts take P-256 (ES256) or Ed25519 keys", p.Curve.Params().Name)
		}
		alg = jose.ES256
	case ed25519.PublicKey:
		alg = jose.EdDSA
	default:
		return nil, fmt.Errorf("a %T key: receipts take P-256 (ES256) or Ed25519 keys only", pub)
	}
	kid, err := thumbprint(pub)
	if err != nil {
		return nil, err
	}
	return &PublicKey{key: pub, alg: alg, kid: kid}, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of a public key, base64url.
func thumbprint(pub any) (string, error) {
	tp, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("conform: key thumbprint: %w", err)
	}
	return b64.EncodeToString(tp), nil
}
