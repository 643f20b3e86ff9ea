// Package sigrpl implements aaep-term's signed-replies extension: the
// subscriber's ES256 key, its JWK and thumbprint, and signing and checking replies.
package sigrpl

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/internal/safefile"
	"github.com/aaep-term/aaep-term/internal/userdir"
)

// Names the extension defines.
const (
	Namespace       = "urn:aaep-term:ext:signed-replies:v1"
	Prefix          = "sigrpl"
	Header          = "AAEP-Reply-Signature" // HTTP header carrying the detached JWS
	JWSType         = "aaep-reply+jws"       // the protected "typ" header
	TypeSignedReply = "sigrpl:signed.reply"  // the wrapped message of framed transports
	Alg             = "ES256"
)

// KeyFile is the name of the key file in the aaep-term config directory.
const KeyFile = "sigrpl-key.pem"

// Key is a subscriber's signing key with its key ID (the RFC 7638
// thumbprint of its public JWK).
type Key struct {
	priv *ecdsa.PrivateKey
	kid  string
	warn string // about the file it was loaded from
}

// Generate makes a new ES256 (P-256) key.
func Generate() (*Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sigrpl: generate key: %w", err)
	}
	return newKey(priv)
}

func newKey(priv *ecdsa.PrivateKey) (*Key, error) {
	kid, err := Thumbprint(jose.JSONWebKey{Key: &priv.PublicKey})
	if err != nil {
		return nil, err
	}
	return &Key{priv: priv, kid: kid}, nil
}

// DefaultPath is where the key lives unless told otherwise:
// sigrpl-key.pem in the aaep-term config directory (internal/userdir), the
// environment read through getenv.
func DefaultPath(getenv func(string) string) (string, error) {
	path, err := userdir.File(getenv, KeyFile)
	if err != nil {
		return "", fmt.Errorf("sigrpl: %w", err)
	}
	return path, nil
}

// LoadOrCreate reads the key at path, or, if there is no file there,
// generates one and stores it with mode 0600 (its directory 0700). created
// says whether the key is new.
func LoadOrCreate(path string) (k *Key, created bool, err error) {
	k, err = Load(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, false, err
	}
	k, err = Generate()
	if err != nil {
		return nil, false, err
	}
	if err := k.Save(path); err != nil {
		return nil, false, err
	}
	return k, true, nil
}

// maxKeyFile bounds the key file read: a PEM P-256 key is a few hundred bytes.
const maxKeyFile = 64 << 10

// Load reads a PEM "PRIVATE KEY" (PKCS #8) P-256 key from path. A symbolic
// link is refused; a file other users can read gives the key a Warning.
func Load(path string) (*Key, error) {
	b, warn, err := safefile.ReadPrivate(path, maxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("sigrpl: read key: %w", err)
	}
	k, err := ParsePEM(b)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		k.warn = "warning: anyone who can read your reply-signing key can sign answers as you, and " + warn + "."
	}
	return k, nil
}

// Warning is a line for the user about the file the key was loaded from
// (other users can read it, and how to fix that), or "".
func (k *Key) Warning() string { return k.warn }

// ParsePEM reads a PEM "PRIVATE KEY" (PKCS #8) or "EC PRIVATE KEY" P-256 key.
func ParsePEM(b []byte) (*Key, error) {
	parsed, err := ParsePEMKey(b, false)
	if err != nil {
		return nil, fmt.Errorf("sigrpl: the key file %w", err)
	}
	priv, ok := parsed.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("sigrpl: the key is not an ES256 (P-256) key")
	}
	return newKey(priv)
}

// ErrNoPEM is ParsePEMKey's error for bytes that hold no PEM block.
var ErrNoPEM = errors.New("holds no PEM block")

// ParsePEMKey parses the key in the first PEM block of b: a PKCS #8
// "PRIVATE KEY" or an "EC PRIVATE KEY", and, when public is true, a PKIX
// "PUBLIC KEY" too. Its errors read after "the file": ErrNoPEM when b
// holds no PEM block, else one that names the block it holds.
func ParsePEMKey(b []byte, public bool) (any, error) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, ErrNoPEM
	}
	var (
		parsed any
		err    error
	)
	switch {
	case blk.Type == "PRIVATE KEY":
		parsed, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case blk.Type == "EC PRIVATE KEY":
		parsed, err = x509.ParseECPrivateKey(blk.Bytes)
	case blk.Type == "PUBLIC KEY" && public:
		parsed, err = x509.ParsePKIXPublicKey(blk.Bytes)
	case public:
		return nil, fmt.Errorf("holds a %q PEM block, not a key", blk.Type)
	default:
		return nil, fmt.Errorf("holds a %q PEM block, not a private key", blk.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("holds a key we cannot read: parse the key: %w", err)
	}
	return parsed, nil
}

// Save writes the key to path as PEM with mode 0600, creating its
// directory with mode 0700. It refuses to overwrite a file.
func (k *Key) Save(path string) error {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return fmt.Errorf("sigrpl: encode key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("sigrpl: save key: %w", err)
	}
	f, err := safefile.CreateNew(path)
	if err != nil {
		return fmt.Errorf("sigrpl: save key: %w", err)
	}
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		f.Close()
		return fmt.Errorf("sigrpl: save key: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sigrpl: save key: %w", err)
	}
	return nil
}

// KID is the key ID: the RFC 7638 SHA-256 thumbprint of the public JWK,
// base64url without padding.
func (k *Key) KID() string { return k.kid }

// PublicJWK is the public key as a JWK with its kid, alg and use.
func (k *Key) PublicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: Alg, Use: "sig"}
}

// Offer is the extensions.sigrpl member of a subscription.request.
type Offer struct {
	Alg string          `json:"alg"`
	KID string          `json:"kid"`
	JWK json.RawMessage `json:"jwk"`
}

// Offer returns the key as offered in a subscription.request.
func (k *Key) Offer() (Offer, error) {
	jwk, err := k.PublicJWK().MarshalJSON()
	if err != nil {
		return Offer{}, fmt.Errorf("sigrpl: encode public key: %w", err)
	}
	return Offer{Alg: Alg, KID: k.kid, JWK: jwk}, nil
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of jwk's public key,
// base64url without padding.
func Thumbprint(jwk jose.JSONWebKey) (string, error) {
	pub := jwk.Public()
	sum, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("sigrpl: thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// Audience is what a signed reply answers, named in its protected header
// so that the signature covers it: a reply signed for one producer,
// subscription or prompt cannot be spent on another. A producer checks all
// three against its own (Audience.Check).
type Audience struct {
	// Producer is the producer's agent_id as its subscription.accepted
	// gave it (header parameter "aud").
	Producer string
	// Subscription is the subscription_id the reply answers on (header
	// parameter "sigrpl_sub").
	Subscription string
	// Prompt is PromptDigest of the prompt event the user answered, as it
	// was received (header parameter "sigrpl_prompt").
	Prompt string
}

// Names of the audience's protected header parameters.
const (
	HeaderAudience     = "aud"
	HeaderSubscription = "sigrpl_sub"
	HeaderPrompt       = "sigrpl_prompt"
)

// digestPrefix starts every PromptDigest.
const digestPrefix = "sha-256:"

// PromptDigest is the digest of a prompt event that a signed reply names:
// "sha-256:" and the SHA-256 of the event's exact bytes (the JSON object as
// the producer wrote it: an SSE data field, a WebSocket or Unix socket
// message, the params of a JSON-RPC aaep.event, a gRPC event's JSON), in
// base64url without padding.
func PromptDigest(event []byte) string {
	sum := sha256.Sum256(event)
	return digestPrefix + base64.RawURLEncoding.EncodeToString(sum[:])
}

// complete says why a is not a whole audience, or nil.
func (a Audience) complete() error {
	switch {
	case a.Producer == "":
		return fmt.Errorf("%w: no producer (%s)", ErrAudience, HeaderAudience)
	case a.Subscription == "":
		return fmt.Errorf("%w: no subscription (%s)", ErrAudience, HeaderSubscription)
	case len(a.Prompt) <= len(digestPrefix) || a.Prompt[:len(digestPrefix)] != digestPrefix:
		return fmt.Errorf("%w: no prompt digest (%s)", ErrAudience, HeaderPrompt)
	}
	return nil
}

// Check compares the audience a signed reply names with want, the
// producer's own agent_id, the subscription the reply is taken on and the
// digest of the prompt its reply_token belongs to. The error wraps
// ErrAudience and says which differs.
func (a Audience) Check(want Audience) error {
	switch {
	case a.Producer != want.Producer:
		return fmt.Errorf("%w: it was signed for the producer %q, not %q", ErrAudience, a.Producer, want.Producer)
	case a.Subscription != want.Subscription:
		return fmt.Errorf("%w: it was signed for the subscription %q, not %q", ErrAudience, a.Subscription, want.Subscription)
	case a.Prompt != want.Prompt:
		return fmt.Errorf("%w: it was signed for another prompt than the one its reply_token names", ErrAudience)
	}
	return nil
}

func (k *Key) sign(payload []byte, aud Audience, at time.Time) (*jose.JSONWebSignature, error) {
	if err := aud.complete(); err != nil {
		return nil, fmt.Errorf("sigrpl: sign: %w", err)
	}
	opts := (&jose.SignerOptions{}).WithType(JWSType).WithHeader("iat", at.Unix()).
		WithHeader(HeaderAudience, aud.Producer).WithHeader(HeaderSubscription, aud.Subscription).
		WithHeader(HeaderPrompt, aud.Prompt)
	s, err := jose.NewSigner(jose.SigningKey{
		Algorithm: jose.ES256,
		Key:       jose.JSONWebKey{Key: k.priv, KeyID: k.kid},
	}, opts)
	if err != nil {
		return nil, fmt.Errorf("sigrpl: signer: %w", err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("sigrpl: sign: %w", err)
	}
	return jws, nil
}

// SignDetached returns the value of the AAEP-Reply-Signature header for a
// reply body: a compact JWS over the exact bytes of body with the payload
// left out ("header..signature"), for aud, issued at at. It signs nothing
// for an audience with a part missing.
func (k *Key) SignDetached(body []byte, aud Audience, at time.Time) (string, error) {
	jws, err := k.sign(body, aud, at)
	if err != nil {
		return "", err
	}
	s, err := jws.DetachedCompactSerialize()
	if err != nil {
		return "", fmt.Errorf("sigrpl: serialize: %w", err)
	}
	return s, nil
}

// SignedReply is the sigrpl:signed.reply message of framed transports.
type SignedReply struct {
	Type string `json:"type"`
	JWS  string `json:"jws"`
}

// Wrap returns the sigrpl:signed.reply message carrying body, signed for
// aud at at.
func (k *Key) Wrap(body []byte, aud Audience, at time.Time) ([]byte, error) {
	jws, err := k.sign(body, aud, at)
	if err != nil {
		return nil, err
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("sigrpl: serialize: %w", err)
	}
	b, err := json.Marshal(SignedReply{Type: TypeSignedReply, JWS: s})
	if err != nil {
		return nil, fmt.Errorf("sigrpl: encode signed reply: %w", err)
	}
	return b, nil
}
