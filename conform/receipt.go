package conform

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/transport"

	"github.com/go-jose/go-jose/v4"
)

// ReceiptType names a receipt's payload; ReceiptMediaType is the "typ" of
// its JWS header.
const (
	ReceiptType      = "aaep-conform-receipt"
	ReceiptMediaType = "aaep-conform-receipt+jws"
	receiptVersion   = 1
)

// DefaultValidity is how long a receipt is valid unless told otherwise.
const DefaultValidity = 90 * 24 * time.Hour

// Validity is how long a receipt is valid, as a person writes it: days
// such as 90d, or a duration such as 36h; more than nothing and at most ten
// years. It is a flag.Value.
type Validity time.Duration

func (v *Validity) String() string {
	d := time.Duration(*v)
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}

// Set parses s as a Validity.
func (v *Validity) Set(s string) error {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil {
			return fmt.Errorf("want days such as 90d or a duration such as 36h, not %q", s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("want days such as 90d or a duration such as 36h, not %q", s)
		}
	}
	if d <= 0 || d > 10*366*24*time.Hour {
		return fmt.Errorf("a receipt is valid for more than nothing and at most ten years, not %s", s)
	}
	*v = Validity(d)
	return nil
}

var b64 = base64.RawURLEncoding

// Receipt is the signed statement of one run of the suite: who ran which
// suite against which implementation, when, with which results, valid until
// when. It is the payload of a compact JWS (ES256 or EdDSA), as
// docs/schemas/conform-receipt.schema.json describes.
type Receipt struct {
	Type           string  `json:"type"`            // ReceiptType
	Version        int     `json:"receipt_version"` // 1
	Role           Role    `json:"role"`
	Implementation Target  `json:"implementation"`
	Suite          Suite   `json:"suite"`
	LevelTested    Level   `json:"level_tested"`
	LevelClaimed   Level   `json:"level_claimed"` // 0: no level holds
	Fast           bool    `json:"fast"`
	Summary        Summary `json:"summary"`
	// ResultsSHA256 is the SHA-256 (hex) of the canonical JSON of the full
	// results (Report.ResultsDigest), as the JSON report also holds it.
	ResultsSHA256 string         `json:"results_sha256"`
	Results       []ResultStatus `json:"results"`
	TestedAt      time.Time      `json:"tested_at"`
	IssuedAt      time.Time      `json:"issued_at"`
	ExpiresAt     time.Time      `json:"expires_at"`
	IssuerKeyID   string         `json:"issuer_kid"` // RFC 7638 thumbprint of the signing key
}

// ResultStatus is one test's outcome in a receipt.
type ResultStatus struct {
	ID     string `json:"id"`
	Level  Level  `json:"level"`
	Status Status `json:"status"`
}

// Claim is the claim sentence the receipt supports, or "" when it supports
// none (no level held).
func (rc *Receipt) Claim() string {
	if rc.LevelClaimed < 1 {
		return ""
	}
	return ClaimSentence(rc.Implementation.Name(), rc.LevelClaimed, rc.Suite, rc.TestedAt)
}

// NewReceipt builds the receipt of a report, issued at now and valid for
// validFor (DefaultValidity when zero), to be signed by k.
func NewReceipt(r *Report, k *SigningKey, now time.Time, validFor time.Duration) (*Receipt, error) {
	if validFor == 0 {
		validFor = DefaultValidity
	}
	if validFor < 0 {
		return nil, fmt.Errorf("conform: a receipt cannot be valid for %v", validFor)
	}
	rc := &Receipt{
		Type:           ReceiptType,
		Version:        receiptVersion,
		Role:           r.Role,
		Implementation: publicTarget(r.Target),
		Suite:          r.Suite,
		LevelTested:    r.Level,
		LevelClaimed:   r.ConformingLevel(),
		Fast:           r.Fast,
		Summary:        r.Summary(),
		ResultsSHA256:  r.ResultsDigest(),
		Results:        make([]ResultStatus, 0, len(r.Results)),
		TestedAt:       r.Finished.UTC(),
		IssuedAt:       now.UTC().Truncate(time.Second),
		ExpiresAt:      now.UTC().Truncate(time.Second).Add(validFor),
		IssuerKeyID:    k.KeyID(),
	}
	for _, res := range r.Results {
		rc.Results = append(rc.Results, ResultStatus{ID: res.ID, Level: res.Level, Status: res.Status})
	}
	return rc, nil
}

// Sign signs the receipt with k as a compact JWS whose header names the
// algorithm, the type and the key (kid, the key's thumbprint). k must be the
// key the receipt names as its issuer.
func (rc *Receipt) Sign(k *SigningKey) (string, error) {
	if k == nil || k.key == nil {
		return "", fmt.Errorf("conform: a receipt is signed with a real key or not written at all")
	}
	if rc.IssuerKeyID != k.KeyID() {
		return "", fmt.Errorf("conform: the receipt names issuer key %s, not the signing key %s", rc.IssuerKeyID, k.KeyID())
	}
	payload, err := Canonical(rc)
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType(ReceiptMediaType).WithHeader("kid", k.KeyID())
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.key}, opts)
	if err != nil {
		return "", fmt.Errorf("conform: sign the receipt: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("conform: sign the receipt: %w", err)
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("conform: sign the receipt: %w", err)
	}
	return compact, nil
}

// publicTarget is the target as a receipt, a public statement, may name it:
// a password in the endpoint's URL, and query values whose names say they
// are secrets (token, key, secret, password, auth), are replaced by xxxxx;
// the values an exec: or acp: command's env(1) sets are left out, their
// names kept (transport.Shown). A recheck never dials a command.
func publicTarget(t Target) Target {
	t.Endpoint = transport.Shown(redactURL(t.Endpoint))
	return t
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for name := range q {
			n := strings.ToLower(name)
			for _, secret := range []string{"token", "key", "secret", "password", "auth"} {
				if strings.Contains(n, secret) {
					q[name] = []string{"xxxxx"}
				}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}
