package sigrpl

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Reasons a signed reply is refused; the errors Verify and Unwrap return
// wrap one of them.
var (
	ErrMalformed    = errors.New("sigrpl: malformed signature")
	ErrAlgorithm    = errors.New("sigrpl: algorithm not allowed")
	ErrUnknownKey   = errors.New("sigrpl: unknown key")
	ErrBadSignature = errors.New("sigrpl: bad signature")
	ErrExpired      = errors.New("sigrpl: signature expired")
	ErrAudience     = errors.New("sigrpl: signed for another audience")
)

// Defaults of Verifier.
const (
	DefaultMaxAge = 5 * time.Minute
	DefaultSkew   = 30 * time.Second
)

// allowed is the only algorithm accepted: never "none", never HMAC.
var allowed = []jose.SignatureAlgorithm{jose.ES256}

// Verifier checks replies signed by one subscriber's key.
type Verifier struct {
	pub *ecdsa.PublicKey
	kid string
	// MaxAge is how old (by its iat) a signature may be; zero means
	// DefaultMaxAge. Skew is how far in the future iat may be; zero
	// means DefaultSkew.
	MaxAge, Skew time.Duration
}

// maxOffer bounds the extensions.sigrpl member read from a request.
const maxOffer = 4 << 10

// ParseOffer reads the extensions.sigrpl member of a subscription.request:
// an ES256 public JWK on P-256, without private parts, whose kid is its
// RFC 7638 thumbprint.
func ParseOffer(raw []byte) (*Verifier, error) {
	if len(raw) > maxOffer {
		return nil, fmt.Errorf("%w: the offer is longer than %d bytes", ErrMalformed, maxOffer)
	}
	var o Offer
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("%w: the offer is not an object with alg, kid and jwk: %v", ErrMalformed, err)
	}
	if o.Alg != Alg {
		return nil, fmt.Errorf("%w: offer alg %q, want %q", ErrAlgorithm, o.Alg, Alg)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(o.JWK); err != nil {
		return nil, fmt.Errorf("%w: offer jwk: %v", ErrMalformed, err)
	}
	if !jwk.IsPublic() {
		return nil, fmt.Errorf("%w: the offered jwk holds a private key", ErrMalformed)
	}
	pub, ok := jwk.Key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return nil, fmt.Errorf("%w: the offered jwk is not a P-256 key", ErrAlgorithm)
	}
	if jwk.Algorithm != "" && jwk.Algorithm != Alg {
		return nil, fmt.Errorf("%w: jwk alg %q, want %q", ErrAlgorithm, jwk.Algorithm, Alg)
	}
	kid, err := Thumbprint(jwk)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if o.KID != kid || jwk.KeyID != "" && jwk.KeyID != kid {
		return nil, fmt.Errorf("%w: kid %q is not the key's thumbprint %q", ErrMalformed, o.KID, kid)
	}
	return &Verifier{pub: pub, kid: kid}, nil
}

// NewVerifier checks signatures made by k.
func NewVerifier(k *Key) *Verifier { return &Verifier{pub: &k.priv.PublicKey, kid: k.kid} }

// KID is the thumbprint of the key the verifier trusts.
func (v *Verifier) KID() string { return v.kid }

// Verify checks sig, the value of an AAEP-Reply-Signature header, over the
// exact bytes of body at time now, and returns the audience it names. The
// caller checks that audience against its own (Audience.Check).
func (v *Verifier) Verify(sig string, body []byte, now time.Time) (Audience, error) {
	jws, err := jose.ParseDetached(sig, body, allowed)
	if err != nil {
		return Audience{}, parseErr(err)
	}
	aud, err := v.check(jws, now)
	if err != nil {
		return Audience{}, err
	}
	if err := jws.DetachedVerify(body, v.pub); err != nil {
		return Audience{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return aud, nil
}

// Addressed returns the audience the protected header of sig, a detached
// signature over body, names, so that a producer can find the one
// subscription whose key is to check it; it checks nothing else.
func Addressed(sig string, body []byte) (Audience, error) {
	jws, err := jose.ParseDetached(sig, body, allowed)
	if err != nil {
		return Audience{}, parseErr(err)
	}
	if len(jws.Signatures) != 1 {
		return Audience{}, fmt.Errorf("%w: want exactly one signature", ErrMalformed)
	}
	return audience(jws.Signatures[0].Protected)
}

// Unwrap checks a sigrpl:signed.reply message at time now and returns the
// reply it carries, byte for byte as signed, and the audience it names.
func (v *Verifier) Unwrap(msg []byte, now time.Time) ([]byte, Audience, error) {
	var m SignedReply
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, Audience{}, fmt.Errorf("%w: not a %s message: %v", ErrMalformed, TypeSignedReply, err)
	}
	if m.Type != TypeSignedReply || m.JWS == "" {
		return nil, Audience{}, fmt.Errorf("%w: want a %s message with a jws", ErrMalformed, TypeSignedReply)
	}
	jws, err := jose.ParseSignedCompact(m.JWS, allowed)
	if err != nil {
		return nil, Audience{}, parseErr(err)
	}
	aud, err := v.check(jws, now)
	if err != nil {
		return nil, Audience{}, err
	}
	body, err := jws.Verify(v.pub)
	if err != nil {
		return nil, Audience{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return body, aud, nil
}

// audience reads the audience of a protected header; all three parts must
// be there, as strings.
func audience(h jose.Header) (Audience, error) {
	str := func(name string) string {
		s, _ := h.ExtraHeaders[jose.HeaderKey(name)].(string)
		return s
	}
	a := Audience{Producer: str(HeaderAudience), Subscription: str(HeaderSubscription), Prompt: str(HeaderPrompt)}
	return a, a.complete()
}

func parseErr(err error) error {
	var unexpected *jose.ErrUnexpectedSignatureAlgorithm
	if errors.Is(err, jose.ErrUnsupportedAlgorithm) || errors.As(err, &unexpected) {
		return fmt.Errorf("%w: %v", ErrAlgorithm, err)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// check reads the protected header: one signature, typ, kid, iat and the
// audience, which it returns.
func (v *Verifier) check(jws *jose.JSONWebSignature, now time.Time) (Audience, error) {
	if len(jws.Signatures) != 1 {
		return Audience{}, fmt.Errorf("%w: want exactly one signature", ErrMalformed)
	}
	h := jws.Signatures[0].Protected
	if h.Algorithm != Alg {
		return Audience{}, fmt.Errorf("%w: alg %q", ErrAlgorithm, h.Algorithm)
	}
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != JWSType {
		return Audience{}, fmt.Errorf("%w: typ %q, want %q", ErrMalformed, typ, JWSType)
	}
	if h.KeyID != v.kid {
		return Audience{}, fmt.Errorf("%w: kid %q, this subscriber's key is %q", ErrUnknownKey, h.KeyID, v.kid)
	}
	iat, ok := h.ExtraHeaders["iat"].(float64)
	if !ok || iat != float64(int64(iat)) {
		return Audience{}, fmt.Errorf("%w: iat is missing or is not a whole number of seconds", ErrMalformed)
	}
	maxAge, skew := v.MaxAge, v.Skew
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	if skew <= 0 {
		skew = DefaultSkew
	}
	at := time.Unix(int64(iat), 0)
	switch {
	case at.After(now.Add(skew)):
		return Audience{}, fmt.Errorf("%w: issued at %s, in the future", ErrExpired, at.UTC().Format(time.RFC3339))
	case now.Sub(at) > maxAge:
		return Audience{}, fmt.Errorf("%w: issued at %s, more than %s ago", ErrExpired, at.UTC().Format(time.RFC3339), maxAge)
	}
	return audience(h)
}
