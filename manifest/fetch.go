package manifest

// manifest_fetch.go: finding a producer's manifest (inline, at its
// manifest_uri, or at /.well-known/aaep-manifest.json), fetching it and
// judging it against the subscription.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/internal/creds"
	"github.com/aaep-term/aaep-term/protocol"
)

// More reasons a manifest is not verified.
var (
	ErrNotFound    = errors.New("manifest: no manifest")
	ErrFetch       = errors.New("manifest: manifest fetch failed")
	ErrUnsigned    = errors.New("manifest: manifest not signed")
	ErrDisagreeing = errors.New("manifest: manifest claims disagree with the subscription")
)

// Sources are where a subscription says its manifest is.
type Sources struct {
	Inline   string // subscription.accepted signed_manifest (a JWS)
	URI      string // manifest_uri, from subscription.accepted or an event's producer
	Endpoint string // the endpoint subscribed to; an http(s) or ws(s) one gives the well-known URI
}

// Finder fetches and verifies manifests. The zero value fetches
// with http.DefaultClient and trusts no key.
type Finder struct {
	// Client fetches manifest URIs; nil means http.DefaultClient. Each
	// fetch is bounded by Timeout all the same.
	Client *http.Client
	// Credentials (a bearer token, --headers) are sent with a fetch from
	// their own origin only, and dropped from a redirect that leaves it;
	// nil sends none.
	Credentials *creds.Set
	// Keys are the trusted signing keys; nil trusts none.
	Keys *Keys
	// Timeout bounds one fetch; zero means 10 seconds (DefaultTimeout).
	// A negative Timeout sets no bound but ctx's: the fetch ends when the
	// producer answers, for a producer whose answer is sure to come (one
	// this process serves itself), so that no timer decides the result.
	Timeout time.Duration
	// Now is the clock for expiry; nil means time.Now.
	Now func() time.Time
	// Ask, if not nil, asks the producer for its manifest on its own
	// binding (gRPC's GetManifest call); Find uses it when the producer
	// gives neither an inline manifest nor an address. A nil document and
	// nil error mean the producer offers none. It is bounded by Timeout.
	Ask func(ctx context.Context) ([]byte, error)
}

// FromAsked is Result.From for a manifest got through Ask.
const FromAsked = "GetManifest"

// Result is what was found about a producer's manifest.
type Result struct {
	// Claims is what the producer claims; nil when none could be read.
	// When Verified is false it is only a claim, even when Signed: the
	// payload of a signature that failed is read all the same, to show it.
	Claims *Claims
	// From is "inline" or the URI it was fetched from; "" when none was found.
	From string
	// Signed: it came as a JWS. Verified: its signature checked out with a
	// trusted key, KID, using Alg, and it is the accepting agent's.
	Signed, Verified bool
	KID, Alg         string
	// Problems are claims that disagree with the subscription, in words.
	Problems []string
	// Err says why the manifest is not verified: a *Error whose
	// Reason is one of the Err… values; nil when verified.
	Err error
}

// Find looks for the manifest where src says (the inline one first, then
// the URI, then the well-known path of the endpoint's origin), verifies a
// signed one, and checks its claims against off.
func (f *Finder) Find(ctx context.Context, src Sources, off Offering) Result {
	var r Result
	doc, signed := src.Inline, true
	switch {
	case src.Inline != "":
		r.From = "inline"
	default:
		uri := src.URI
		if uri == "" {
			uri = WellKnownURI(src.Endpoint)
		}
		if uri == "" && f.Ask == nil {
			r.Err = manifestFail(ErrNotFound, "The producer gives no manifest: none in its acceptance, and no web address to look for one.")
			return r
		}
		var body []byte
		var err error
		if uri == "" {
			r.From = FromAsked
			body, err = f.ask(ctx)
		} else {
			r.From = uri
			body, err = f.fetch(ctx, uri)
		}
		if err != nil {
			r.Err = err
			return r
		}
		doc, signed = string(body), looksSigned(body)
	}
	r.Signed = signed
	if signed {
		sm, err := Verify(doc, f.Keys, f.now())
		if err != nil {
			r.Err = err
			r.Claims, _ = Parse(unverifiedPayload(doc)) // what it claims, not to be trusted
			return r
		}
		r.Claims, r.KID, r.Alg = sm.Claims, sm.KID, string(sm.Alg)
	} else {
		m, err := Parse([]byte(doc))
		if err != nil {
			r.Err = err
			return r
		}
		r.Claims = m
	}
	problems, err := r.Claims.Check(off)
	if err != nil {
		r.Err = err
		return r
	}
	r.Problems = problems
	switch {
	case !signed:
		r.Err = manifestFail(ErrUnsigned, "The producer's manifest is not signed.")
	case len(problems) > 0:
		r.Err = manifestFail(ErrDisagreeing, "The producer's manifest is signed by key %s, but its claims disagree with this subscription: %s.",
			r.KID, strings.Join(problems, "; "))
	default:
		r.Verified = true
	}
	return r
}

// Sentence says in one line what was found: "The producer's manifest is
// signed by key K and verified.", "… is not signed.", or why it was refused.
func (r Result) Sentence() string {
	if r.Verified {
		return fmt.Sprintf("The producer's manifest is signed by key %s and verified.", r.KID)
	}
	var me *Error
	if errors.As(r.Err, &me) {
		s := me.Words
		if errors.Is(r.Err, ErrUnsigned) && len(r.Problems) > 0 {
			s += " " + prose.Stop("Its claims disagree with this subscription: "+strings.Join(r.Problems, "; "))
		}
		return s
	}
	if r.Err != nil {
		return prose.Stop("The producer's manifest could not be checked: " + protocol.Line(r.Err.Error()))
	}
	return "The producer's manifest could not be checked."
}

// WellKnownURI is the manifest URI at the origin of an http(s) or ws(s)
// endpoint (a ws endpoint's origin is taken as http, wss as https); "" for
// other endpoints.
func WellKnownURI(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		u.Scheme = "http"
	case "https", "wss":
		u.Scheme = "https"
	default:
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: protocol.PathManifest}).String()
}

// DefaultTimeout bounds a fetch of a Finder whose Timeout is zero.
const DefaultTimeout = 10 * time.Second

// limit is the bound of one fetch, or 0 for none (a negative Timeout).
func (f *Finder) limit() time.Duration {
	switch {
	case f.Timeout < 0:
		return 0
	case f.Timeout == 0:
		return DefaultTimeout
	}
	return f.Timeout
}

// bound is ctx bounded as Timeout says, and the function that releases it.
func (f *Finder) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := f.limit(); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// failure says why a fetch failed with err, bounded by ctx, bound's of
// parent: in words when that bound ran out (and not parent's), not as Go's
// "context deadline exceeded"; else err's text, on one line.
func (f *Finder) failure(parent, ctx context.Context, err error) string {
	d := f.limit()
	if d <= 0 || parent.Err() != nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return protocol.Line(err.Error())
	}
	if d%time.Second == 0 {
		return "it did not come within " + prose.Count(int(d/time.Second), "second", "seconds")
	}
	return "it did not come within " + d.String()
}

// ask gets the manifest through f.Ask.
func (f *Finder) ask(parent context.Context) ([]byte, error) {
	ctx, cancel := f.bound(parent)
	defer cancel()
	body, err := f.Ask(ctx)
	switch {
	case err != nil:
		return nil, manifestFail(ErrFetch, "The producer's GetManifest call failed: %s.", f.failure(parent, ctx, err))
	case body == nil:
		return nil, manifestFail(ErrNotFound, "The producer gives no manifest: none in its acceptance, and its GetManifest call offers none.")
	}
	return body, nil
}

// fetch GETs a manifest URI (http or https only), at most MaxBytes.
func (f *Finder) fetch(parent context.Context, uri string) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return manifestFail(ErrFetch, "The producer's manifest could not be fetched from %s: "+format+".",
			append([]any{protocol.Line(uri)}, args...)...)
	}
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fail("it is not an http:// or https:// address")
	}
	ctx, cancel := f.bound(parent)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fail("%s", protocol.Line(err.Error()))
	}
	f.Credentials.Apply(req.Header, req.URL)
	req.Header.Set("Accept", "application/jose, application/json")
	resp, err := f.Credentials.Client(f.Client).Do(req)
	if err != nil {
		return nil, fail("%s", f.failure(parent, ctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, manifestFail(ErrNotFound, "The producer publishes no manifest at %s (404 Not Found).", protocol.Line(uri))
	}
	if resp.StatusCode/100 != 2 {
		return nil, fail("the answer was %s", protocol.Line(resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes*2+1))
	if err != nil {
		return nil, fail("%s", f.failure(parent, ctx, err))
	}
	if len(body) > MaxBytes*2 {
		return nil, fail("it is longer than %d bytes", MaxBytes*2)
	}
	return body, nil
}

// looksSigned tells a JWS (compact, or JSON with a payload and signatures)
// from a plain manifest object.
func looksSigned(b []byte) bool {
	s := strings.TrimSpace(string(b))
	if !strings.HasPrefix(s, "{") {
		return true
	}
	return strings.Contains(s, `"payload"`) && (strings.Contains(s, `"signature"`) || strings.Contains(s, `"signatures"`)) &&
		!strings.Contains(s, `"agent_id"`)
}

func (f *Finder) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// unverifiedPayload is the payload of a JWS, compact or JSON, without any
// check; nil when there is none to read.
func unverifiedPayload(jws string) []byte {
	jws = strings.TrimSpace(jws)
	var part string
	if strings.HasPrefix(jws, "{") {
		var j struct {
			Payload string `json:"payload"`
		}
		if json.Unmarshal([]byte(jws), &j) != nil {
			return nil
		}
		part = j.Payload
	} else {
		segs := strings.Split(jws, ".")
		if len(segs) != 3 {
			return nil
		}
		part = segs[1]
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return nil
	}
	return b
}
