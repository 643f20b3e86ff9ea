package main

// manifest.go: the producer's manifest during a listen run
// (--require-signed-manifest, --trusted-keys, --manifest-key): asking for a
// signed one, checking it once the producer accepted, and closing the
// subscription when it fails and the user required it.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc/codes"

	"github.com/aaep-term/aaep-term/internal/creds"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// trustedKeysDir is the default --trusted-keys, under the config directory.
const trustedKeysDir = "aaep-term/trusted-keys"

// manifestOptions are the manifest flags and what the run learned.
type manifestOptions struct {
	Require bool   // --require-signed-manifest
	KeysDir string // --trusted-keys; "" means the default under the config dir
	KeyFile string // --manifest-key: the one pinned JWK

	keys     *session.ManifestKeys
	endpoint string // the endpoint dialled (the demo's URL with --demo); set by begin
	checked  string // what the last check was about, so each is done once
	refused  bool   // the subscription was closed for its manifest

	// claims holds the manifest last read, signed or not, once a check has
	// read one; events are compared with it. Made by begin; set from the
	// check's goroutine.
	claims  *atomic.Pointer[session.Manifest]
	unclaim map[string]bool // event types already reported as not in the manifest
}

// maxUnclaimed bounds the event types reported as missing from the manifest.
const maxUnclaimed = 64

// begin notes the endpoint dialled and returns the run's context.
func (m *manifestOptions) begin(ctx context.Context, endpoint string) (context.Context, context.CancelFunc) {
	m.endpoint = endpoint
	m.claims = new(atomic.Pointer[session.Manifest])
	return context.WithCancel(ctx)
}

func addManifestFlags(fs *flag.FlagSet, o *manifestOptions) {
	fs.BoolVar(&o.Require, "require-signed-manifest", false, "ask for a signed producer manifest and close the subscription unless it verifies with a trusted key")
	addManifestKeyFlags(fs, o)
}

// addManifestKeyFlags defines --trusted-keys and --manifest-key.
func addManifestKeyFlags(fs *flag.FlagSet, o *manifestOptions) {
	fs.StringVar(&o.KeysDir, "trusted-keys", "", "`DIR` of public JWK files (*.jwk, *.json) trusted to sign manifests, by kid (default: "+trustedKeysDir+" in your config directory)")
	fs.StringVar(&o.KeyFile, "manifest-key", "", "the one public JWK `FILE` a manifest must be signed with (pins the key; --trusted-keys is then ignored)")
}

// load reads the trusted keys.
func (m *manifestOptions) load() error {
	dir := m.KeysDir
	if dir == "" {
		cfg, err := os.UserConfigDir()
		if err == nil {
			dir = filepath.Join(cfg, trustedKeysDir)
		}
	}
	keys, err := session.LoadManifestKeys(dir, m.KeyFile)
	if err != nil {
		return err
	}
	m.keys = keys
	return nil
}

// checkManifestFlags refuses --require-signed-manifest where nothing can be
// checked.
func checkManifestFlags(o *options) error {
	if o.Manifest.Require && !o.Demo && !answers(o.Endpoint) {
		return fmt.Errorf("--require-signed-manifest needs a live producer, not a file")
	}
	return nil
}

// addManifestRequest asks for a signed manifest in a subscription.request.
func addManifestRequest(req map[string]any, o *options) {
	if !o.Manifest.Require {
		return
	}
	if caps, ok := req["capabilities"].(map[string]any); ok {
		caps["accept_signed_manifests_only"] = true
	}
}

// transportName is the endpoint's binding as manifests name it.
func transportName(endpoint string) string {
	scheme, _, _ := strings.Cut(strings.ToLower(endpoint), ":")
	switch scheme {
	case "http", "https":
		return "sse"
	case "ws", "wss":
		return "websocket"
	case "exec", "stdio":
		return "stdio"
	case "unix":
		return "unix"
	case "grpc", "grpcs":
		return "grpc"
	}
	return ""
}

// finder fetches manifests with the connection's TLS settings, sending the
// token and headers only to the endpoint's own origin (scheme, host, port).
func (o *options) finder(endpoint string) *session.ManifestFinder {
	f := &session.ManifestFinder{Client: o.TLS.client, Keys: o.Manifest.keys, Now: o.Now}
	if transportName(endpoint) == "grpc" {
		f.Ask = func(ctx context.Context) ([]byte, error) {
			b, err := transport.GetManifest(ctx, endpoint, transport.GRPCOptions{Token: o.Token, TLSConfig: o.TLS.config})
			var ge *transport.GRPCError
			if errors.As(err, &ge) && ge.Code == codes.Unimplemented {
				return nil, nil // the producer offers no GetManifest
			}
			return b, err
		}
	}
	if eu, err := url.Parse(endpoint); err == nil {
		f.Credentials = creds.New(eu, o.Token, o.Header)
	}
	return f
}

// manifestAccepted checks the manifest of a subscription.accepted, once per
// manifest. With --require-signed-manifest it waits for the answer and
// closes the subscription when the manifest fails; otherwise it says the
// result in one line when it comes.
func (l *listener) manifestAccepted(b []byte) {
	var acc protocol.SubscriptionAccepted
	if json.Unmarshal(b, &acc) != nil {
		return
	}
	src := session.ManifestSources{Inline: acc.SignedManifest, URI: cmp.Or(acc.ManifestURI, acc.Producer.ManifestURI), Endpoint: l.endpoint()}
	off := session.Offering{
		AgentID:   acc.Producer.AgentID,
		Transport: transportName(l.endpoint()),
		Levels:    acc.HonoredCapabilities.SupportedConformanceLevels,
		Languages: acc.HonoredCapabilities.Languages,
	}
	l.checkManifest(src, off)
}

// manifestEvent compares an event's type with the manifest's claims, and,
// for a producer without a handshake, checks the manifest it points to
// (producer.manifest_uri, else the well-known path) at its first event.
func (l *listener) manifestEvent(ev *protocol.Event) {
	m := &l.o.Manifest
	if ev == nil {
		return
	}
	if !answers(l.endpoint()) {
		l.recordedManifest(ev)
		return
	}
	if m.checked == "" {
		src := session.ManifestSources{URI: ev.Producer.ManifestURI, Endpoint: l.endpoint()}
		l.checkManifest(src, session.Offering{AgentID: ev.Producer.AgentID, Transport: transportName(l.endpoint())})
	}
	if m.claims == nil {
		return
	}
	claims := m.claims.Load()
	if claims == nil || claims.Emits(ev.Type) || m.unclaim[ev.Type] || len(m.unclaim) >= maxUnclaimed {
		return
	}
	if m.unclaim == nil {
		m.unclaim = map[string]bool{}
	}
	m.unclaim[ev.Type] = true
	l.Diagnose(session.Diagnostic{At: l.o.Now(), Code: "manifest", Message: fmt.Sprintf(
		"The producer sent an event of type %s, which its manifest does not list among the types it emits.", protocol.Sanitize(ev.Type))})
}

// recordedManifest reports the first manifest_uri an event read from a
// file names, once. Nothing is fetched: reading a file makes no
// network request.
func (l *listener) recordedManifest(ev *protocol.Event) {
	m := &l.o.Manifest
	uri := ev.Producer.ManifestURI
	if uri == "" || m.checked != "" {
		return
	}
	m.checked = uri
	l.say(fmt.Sprintf("The recording names the producer's manifest at %s; it is not fetched when reading a file.", protocol.Sanitize(uri)))
}

func (l *listener) checkManifest(src session.ManifestSources, off session.Offering) {
	m := &l.o.Manifest
	key := off.AgentID + "\x00" + src.Inline + "\x00" + src.URI
	if m.checked == key {
		return
	}
	m.checked = key
	f := l.o.finder(src.Endpoint)
	if !m.Require {
		go func() {
			r := f.Find(context.Background(), src, off)
			m.remember(r)
			l.note(manifestWords(r, m))
		}()
		return
	}
	r := f.Find(context.Background(), src, off)
	m.remember(r)
	if r.Verified {
		l.say(manifestWords(r, m))
		return
	}
	l.say(manifestWords(r, m) + " You required a signed, verified manifest (--require-signed-manifest).")
	m.refused = true
	l.closeSubscription(closeManifest, "The producer's manifest did not verify.")
	l.neg.end = "The subscription is closed because the producer's manifest did not verify." // the run ends after this frame
}

// remember keeps the claims of a manifest that was read.
func (m *manifestOptions) remember(r session.ManifestResult) {
	if r.Manifest != nil && m.claims != nil {
		m.claims.Store(r.Manifest)
	}
}

// closeManifest is the subscription.close reason code when the producer's
// manifest did not verify.
const closeManifest = "manifest_unverified"

// manifestWords is the one line about a manifest check, with a hint when a
// key is not trusted.
func manifestWords(r session.ManifestResult, m *manifestOptions) string {
	s := r.Sentence()
	if r.Err != nil && strings.Contains(s, "not among your trusted keys") {
		s += " To trust it, put the producer's public key (a JWK file) in " + cmp.Or(m.KeysDir, trustedKeysDir+" in your config directory") +
			", or pin it with --manifest-key FILE."
	}
	return s
}

func (l *listener) endpoint() string { return cmp.Or(l.o.Manifest.endpoint, l.o.Endpoint) }
