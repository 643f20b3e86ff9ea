package subscriber

// manifest.go: the producer's manifest: asking for a signed one, checking
// it once the producer accepted (or at a handshake-less producer's first
// event), closing the subscription when it fails and it was required, and
// comparing events with what it claims.

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/creds"
	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// ManifestConfig configures the manifest check. The zero value checks
// manifests against no trusted key and requires none.
type ManifestConfig struct {
	// Require asks for a signed manifest and closes the subscription
	// unless it verifies with a trusted key; the End then carries a
	// *ManifestRefusedError.
	Require bool
	// Keys are the keys trusted to sign manifests; nil trusts none.
	Keys *manifest.Keys
	// KeysWhere names, in a hint, where the user puts trusted keys.
	KeysWhere string
	// Hints adds a program's hints to InspectManifest's report and note
	// (HintManifestKey, HintAuthenticate, …). A Client words everything
	// with Config.Hints, these included.
	Hints Hints
	// HTTPClient fetches manifests; nil means the default client.
	HTTPClient *http.Client
	// TLSConfig is used for a gRPC endpoint's GetManifest.
	TLSConfig *tls.Config
	// GRPCBinding asks a gRPC endpoint for its manifest; nil means
	// Config.Transport's (or InspectManifest's options').
	GRPCBinding transport.GRPCBinding
	// Token and Header go with fetches to the endpoint's own origin.
	Token  string
	Header http.Header
	// Now is the clock manifests' expiry is judged by; nil means time.Now.
	Now func() time.Time
	// Unbounded makes the check wait for the producer's answer however
	// long it takes, the first events with it, instead of at most
	// quickManifestWait (or, when required, the finder's
	// manifest.DefaultTimeout). It is for a producer this process serves
	// itself (aaep-listen --demo), whose answer is sure to come: no timer
	// then decides what is said of its manifest, and the lines are the
	// same every run however busy the machine.
	Unbounded bool
}

// maxUnclaimed bounds the event types reported as missing from the manifest.
const maxUnclaimed = 64

// closeManifest is the subscription.close reason code when the producer's
// manifest did not verify.
const closeManifest = "manifest_unverified"

// manifestState is what the run learned of the manifest.
type manifestState struct {
	checked string           // what the last check was about, so each is done once
	claims  *manifest.Claims // the manifest last read, signed or not
	unclaim map[string]bool  // event types already reported as not in the manifest
}

// Finder fetches manifests for endpoint with m's TLS settings, sending the
// token and headers only to the endpoint's own origin.
func (m ManifestConfig) Finder(endpoint string) *manifest.Finder {
	ep, _ := transport.ParseEndpoint(endpoint) // a file or nothing: no origin, no credentials
	return m.finder(ep)
}

// finder is Finder for an endpoint already parsed.
func (m ManifestConfig) finder(ep transport.Endpoint) *manifest.Finder {
	now := m.Now
	if now == nil {
		now = time.Now
	}
	f := &manifest.Finder{Client: m.HTTPClient, Keys: m.Keys, Now: now}
	if ep.Binding == transport.BindingGRPC && m.GRPCBinding != nil {
		f.Ask = func(ctx context.Context) ([]byte, error) {
			b, err := m.GRPCBinding.GetManifest(ctx, ep, transport.GRPCOptions{Token: m.Token, TLSConfig: m.TLSConfig})
			if errors.Is(err, transport.ErrNoManifestCall) {
				return nil, nil // the producer offers no GetManifest
			}
			return b, err
		}
	}
	f.Credentials = creds.New(ep.URL, m.Token, m.Header)
	return f
}

// Words is the one line about a manifest check, saying where trusted keys
// go when a key is not trusted, with m.Hints' hint (HintManifestKey).
func (m ManifestConfig) Words(r manifest.Result) string { return m.words(r, m.Hints) }

// words is the one line about a manifest check, with the hints f adds.
func (m ManifestConfig) words(r manifest.Result, f Hints) string {
	s := r.Sentence()
	if r.Err != nil && strings.Contains(s, "not among your trusted keys") {
		s = f.word(HintManifestKey, s+" To trust it, put the producer's public key (a JWK file) in "+cmp.Or(m.KeysWhere, "your trusted keys directory")+".")
	}
	return s
}

// transportName is the endpoint's binding as manifests name it; "" for a file.
func transportName(ep transport.Endpoint) string {
	if ep.Binding.Answers() {
		return ep.Binding.String()
	}
	return ""
}

// live reports whether the endpoint is a producer, not a file; it is read
// once, when the client is made, not at every event.
func (c *Client) live() bool { return c.isLive }

// manifestAccepted checks the manifest of a subscription.accepted.
func (c *Client) manifestAccepted(acc protocol.SubscriptionAccepted) {
	if !c.live() { // a recorded acceptance: nothing is fetched
		c.recordedManifest(cmp.Or(acc.ManifestURI, acc.Producer.ManifestURI), acc.SignedManifest != "")
		return
	}
	src := manifest.Sources{Inline: acc.SignedManifest, URI: cmp.Or(acc.ManifestURI, acc.Producer.ManifestURI), Endpoint: c.endpoint}
	off := manifest.Offering{
		AgentID:   acc.Producer.AgentID,
		Transport: transportName(c.ep),
		Levels:    acc.HonoredCapabilities.SupportedConformanceLevels,
		Languages: acc.HonoredCapabilities.Languages,
	}
	c.checkManifest(src, off)
}

// manifestEvent compares an event's type with the manifest's claims, and,
// for a producer without a handshake, checks the manifest it points to at
// its first event.
func (c *Client) manifestEvent(ev *protocol.Event) {
	m := &c.manif
	if !c.live() {
		c.recordedManifest(ev.Producer.ManifestURI, false)
		return
	}
	if m.checked == "" {
		src := manifest.Sources{URI: ev.Producer.ManifestURI, Endpoint: c.endpoint}
		c.checkManifest(src, manifest.Offering{AgentID: ev.Producer.AgentID, Transport: transportName(c.ep)})
	}
	if m.claims == nil || m.claims.Emits(ev.Type) || m.unclaim[ev.Type] || len(m.unclaim) >= maxUnclaimed {
		return
	}
	if m.unclaim == nil {
		m.unclaim = map[string]bool{}
	}
	m.unclaim[ev.Type] = true
	c.diagnose(session.Diagnostic{At: c.now(), Code: "manifest", Message: fmt.Sprintf(
		"The producer sent an event of type %s, which its manifest does not list among the types it emits.", protocol.Name(ev.Type))})
}

// recordedManifest reports the first manifest a recording read from a file
// names (uri), or holds (inline), once. Reading a file makes no network
// request, whatever the recording says.
func (c *Client) recordedManifest(uri string, inline bool) {
	m := &c.manif
	if uri == "" && !inline || m.checked != "" {
		return
	}
	if uri == "" {
		m.checked = "inline"
		c.sayQuiet(StatusManifest, "The recording holds the producer's signed manifest; it is not checked when reading a file.")
		return
	}
	m.checked = uri
	c.sayQuiet(StatusManifest, fmt.Sprintf("The recording names the producer's manifest at %s; it is not fetched when reading a file.", protocol.Theirs(protocol.Line(uri))))
}

// checkManifest checks a manifest, once per manifest, on the owner
// goroutine: its line comes at the same place in the stream every run.
// Frames wait meanwhile, at most quickManifestWait when the manifest is
// not required (the finder's own timeout when it is), as long as it takes
// when the check is Unbounded.
func (c *Client) checkManifest(src manifest.Sources, off manifest.Offering) {
	m := &c.manif
	key := off.AgentID + "\x00" + src.Inline + "\x00" + src.URI
	if m.checked == key {
		return
	}
	m.checked = key
	mc := c.cfg.Manifest
	if mc.Now == nil {
		mc.Now = c.now
	}
	if mc.GRPCBinding == nil {
		mc.GRPCBinding = c.cfg.Transport.GRPCBinding
	}
	f := mc.finder(c.ep)
	switch {
	case mc.Unbounded:
		f.Timeout = -1 // the answer is sure to come: no timer decides the line
	case !mc.Require:
		f.Timeout = quickManifestWait // frames wait meanwhile
	}
	r := f.Find(context.Background(), src, off)
	if r.Claims != nil {
		m.claims = r.Claims
	}
	if !mc.Require || r.Verified {
		if !mc.Require && (r.Verified || errors.Is(r.Err, manifest.ErrNotFound) || errors.Is(r.Err, manifest.ErrUnsigned) && len(r.Problems) == 0) {
			c.sayQuiet(StatusManifest, mc.words(r, c.cfg.Hints)) // nothing amiss: none, unsigned, or verified
		} else {
			c.say(StatusManifest, mc.words(r, c.cfg.Hints))
		}
		return
	}
	c.say(StatusManifest, mc.words(r, c.cfg.Hints)+" "+c.cfg.Hints.word(HintManifestRequired, "You required a signed, verified manifest."))
	c.closeSubscription(closeManifest, "The producer's manifest did not verify.")
	c.neg.end = "The subscription is closed because the producer's manifest did not verify."
	c.neg.endErr = &ManifestRefusedError{Result: cmp.Or(r.Err, errors.New("not verified"))}
}

// quickManifestWait bounds a manifest check nobody required: the first
// events wait for it at most this long.
const quickManifestWait = 2 * time.Second

// manifestWait is how long Discover waits for the producer's first message.
const manifestWait = 5 * time.Second

// Discover subscribes to endpoint just long enough to learn where its
// manifest is and what to check it against, then closes the subscription.
// note says in words what the producer did when it was not an acceptance.
func Discover(ctx context.Context, endpoint string, opts transport.Options, id session.Identity) (src manifest.Sources, off manifest.Offering, note string) {
	ep, err := transport.ParseEndpoint(endpoint)
	return discover(ctx, ep, err, opts, id, nil)
}

// discover is Discover, its note worded with the hints added; perr is
// ParseEndpoint's error.
func discover(ctx context.Context, ep transport.Endpoint, perr error, opts transport.Options, id session.Identity, hints Hints) (src manifest.Sources, off manifest.Offering, note string) {
	endpoint := ep.String()
	src = manifest.Sources{Endpoint: endpoint}
	off = manifest.Offering{Transport: transportName(ep)}
	if perr != nil {
		return src, off, "Could not subscribe to " + endpoint + " (" + protocol.Line(perr.Error()) + "); looking for the manifest all the same."
	}
	req, _ := json.Marshal(session.Request(id, session.Terms{}))
	dctx, cancel := context.WithTimeout(ctx, manifestWait)
	defer cancel()
	opts.SSE.SubscriptionRequest, opts.SSE.MaxReconnects = req, -1
	opts.WebSocket.MaxReconnects, opts.Unix.MaxReconnects, opts.GRPC.MaxReconnects = -1, -1, -1
	conn, err := transport.DialEndpoint(dctx, ep, opts)
	if err != nil {
		return src, off, "Could not subscribe to " + endpoint + " (" + protocol.Line(err.Error()) + "); looking for the manifest all the same."
	}
	defer conn.Close()
	f, err := conn.Recv(dctx)
	for err == nil && f.Note != nil { // a connection opened with InBand notes: its first message
		f, err = conn.Recv(dctx)
	}
	if err != nil {
		return src, off, "The producer sent nothing in " + manifestWait.String() + "; looking for the manifest all the same."
	}
	var dec protocol.Decoder
	d := decode(&dec, f)
	switch d.message {
	case protocol.TypeSubscriptionAccepted:
		var acc protocol.SubscriptionAccepted
		if json.Unmarshal(f.Data, &acc) == nil {
			src.Inline, src.URI = acc.SignedManifest, cmp.Or(acc.ManifestURI, acc.Producer.ManifestURI)
			off.AgentID = acc.Producer.AgentID
			off.Levels = acc.HonoredCapabilities.SupportedConformanceLevels
			off.Languages = acc.HonoredCapabilities.Languages
			_ = conn.Send(dctx, session.Close(acc.SubscriptionID, session.CloseShutdown, "Only the manifest was wanted.")) // the connection closes either way
		}
		return src, off, ""
	case protocol.TypeSubscriptionRejected:
		var rej protocol.SubscriptionRejected
		_ = json.Unmarshal(f.Data, &rej)
		return src, off, "The producer refused the subscription: " + hints.RejectionWords(rej.ReasonCode) + " Looking for its manifest all the same."
	}
	if d.ev != nil {
		src.URI, off.AgentID = d.ev.Producer.ManifestURI, d.ev.Producer.AgentID
	}
	return src, off, "The producer did not negotiate (no handshake); its agent is taken from its first event."
}
