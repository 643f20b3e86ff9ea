package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// exitCode waits for the listener and returns its exit status.
func (r *listenerRun) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case err := <-r.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("listener did not exit\nstdout:\n%s\nstderr:\n%s", r.stdout(), r.stderr())
	}
	return -1
}

// With --require-signed-manifest, every bad manifest closes the
// subscription with its own sentence, and the listener exits 1; a good one
// lets the session run to its end.
func TestRequireSignedManifest(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "ES256")
	for _, tc := range []struct {
		name  string
		fault producer.ManifestFault
		noKey bool
		want  string
		code  int
		quirk bool // a producer without a handshake
	}{
		{"verified", producer.ManifestHonest, false, "The producer's manifest is signed by key " + key.KID + " and verified.", 0, false},
		{"forged", producer.ManifestForged, false, "is forged or was altered: its signature does not match key " + key.KID, 1, false},
		{"wrong key", producer.ManifestWrongKey, false, "which is not among your trusted keys. To trust it, put the producer's public key", 1, false},
		{"alg none", producer.ManifestAlgNone, false, "signed with alg none, which means not signed at all", 1, false},
		{"HS256", producer.ManifestHS256, false, "signed with HS256, a shared-secret code that proves nothing", 1, false},
		{"other agent", producer.ManifestOtherAgent, false, "is for agent someone-else, but agent aaep-term-demo accepted the subscription", 1, false},
		{"unsigned", producer.ManifestHonest, true, "The producer refused the subscription: this subscription requires a signed manifest, and the producer has none.", 1, false},
		{"no handshake", producer.ManifestHonest, true, "The producer publishes no manifest at http://", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key, ManifestFault: tc.fault}
			if tc.noKey {
				opts.ManifestKey = nil
			}
			opts.Quirks = tc.quirk
			p, url := serve(t, opts)
			r := startListener(t, "--plain", "--auto-reply", "reject", "--require-signed-manifest", "--trusted-keys", dir, url)
			r.waitOutput(t, tc.want)
			if code := r.exitCode(t); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, r.stdout(), r.stderr())
			}
			out := r.stdout()
			closed := strings.Contains(out, "(--require-signed-manifest).") &&
				strings.HasSuffix(strings.TrimSpace(out), "The subscription is closed because the producer's manifest did not verify.")
			// A producer that refuses the subscription is not closed by us.
			if wantClosed := tc.code == 1 && tc.name != "unsigned"; closed != wantClosed {
				t.Errorf("closed %v:\n%s", closed, out)
			}
			if tc.code == 1 && strings.Contains(out, "Confirmation needed") {
				// The confirmation may have been on its way; it must not
				// have been answered.
				for _, o := range p.Outcomes() {
					if o.Resolution == producer.Rejected && o.SubscriptionID != "" {
						t.Errorf("answered a prompt of an unverified producer: %+v", o)
					}
				}
			}
			if tc.code == 0 && !tc.noKey && !strings.Contains(out, "Confirmation needed") {
				t.Errorf("the verified session was not announced:\n%s", out)
			}
		})
	}
}

// Over WebSocket the inline signed manifest is checked the same way.
func TestRequireSignedManifestWebSocket(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "EdDSA")
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key, ManifestFault: producer.ManifestForged})
	ws := "ws" + strings.TrimPrefix(url, "http") + protocol.PathWebSocket
	r := startListener(t, "--plain", "--require-signed-manifest", "--trusted-keys", dir, ws)
	r.waitOutput(t, "is forged or was altered")
	if code := r.exitCode(t); code != 1 {
		t.Fatalf("exit %d\n%s", code, r.stdout())
	}
}

// Over gRPC too, and aaep-listen manifest reads the signed manifest from the
// acceptance on the Subscribe stream.
func TestSignedManifestGRPC(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "EdDSA")
	_, url := serveProducerGRPC(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key, ManifestFault: producer.ManifestForged})
	r := startListener(t, "--plain", "--require-signed-manifest", "--trusted-keys", dir, url)
	r.waitOutput(t, "is forged or was altered")
	if code := r.exitCode(t); code != 1 {
		t.Fatalf("exit %d\n%s", code, r.stdout())
	}
	_, url = serveProducerGRPC(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key})
	m := startListener(t, "manifest", "--trusted-keys", dir, url)
	if code := m.exitCode(t); code != 0 || !strings.Contains(m.stdout(), "Transports: sse, websocket, stdio, unix, grpc") {
		t.Fatalf("manifest over gRPC: exit %d\n%s\n%s", code, m.stdout(), m.stderr())
	}
}

// A gRPC producer that sends no manifest in its acceptance is asked through
// its GetManifest call (no web address is guessed for it).
func TestManifestByGetManifest(t *testing.T) {
	t.Parallel()
	_, url := serveProducerGRPC(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--verbosity", "detailed", url) // nothing amiss is said only when asked
	r.waitOutput(t, "The producer's manifest is not signed.")
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "reject 1")
	r.wait(t)
	m := startListener(t, "manifest", url)
	m.exitCode(t)
	if !strings.Contains(m.stdout(), "Found: GetManifest") {
		t.Errorf("aaep-listen manifest over gRPC:\n%s\n%s", m.stdout(), m.stderr())
	}
}

// Without the flag, the result is one line and the session goes on; when
// nothing is amiss, it is said only when asked (--verbosity detailed).
func TestManifestAnnounced(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "ES256")
	for _, tc := range []struct {
		name string
		key  *producer.ManifestKey
		want string
	}{
		{"signed", key, "The producer's manifest is signed by key " + key.KID + " and verified."},
		{"unsigned", nil, "The producer's manifest is not signed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: tc.key})
			// The prompt waits for the answer, so the session cannot end
			// before the check, which runs beside it, is told.
			r := startListener(t, "--plain", "--verbosity", "detailed", "--trusted-keys", dir, url)
			r.waitOutput(t, tc.want)
			r.waitOutput(t, "Confirmation needed")
			fmt.Fprintln(r.stdin, "reject 1")
			r.wait(t)
			if strings.Count(r.stdout(), "The producer's manifest") != 1 {
				t.Errorf("want one manifest line:\n%s", r.stdout())
			}
		})
	}
}

// "aaep-listen manifest" prints the claims and the verdict, in lines and
// in JSON, with exit status 0 only when verified.
func TestManifestCommand(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "ES256")
	_, signed := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key})
	_, unsigned := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	_, legacy := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), Quirks: true})

	tio, _, out, errOut := term.Test()
	if code := runManifest(context.Background(), []string{"--trusted-keys", dir, signed}, tio, noEnv); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"The producer's manifest is signed by key " + key.KID + " and verified.\n",
		"Found: inline\n", "Agent: aaep-term-demo\n", "Conformance levels: 1, 2, 3\n",
		"Transports: sse, websocket, stdio, unix, grpc\n", "Extensions: urn:aaep-term:ext:signed-replies:v1\n",
		"Event types: aaep:agent.awaiting.confirmation",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Error("escape sequence in plain output")
	}

	// Without the key trusted, the claims are shown as claims.
	tio, _, out, _ = term.Test()
	if code := runManifest(context.Background(), []string{signed}, tio, noEnv); code != 1 ||
		!strings.Contains(out.String(), "which is not among your trusted keys") ||
		!strings.Contains(out.String(), "What it claims, not verified:\nAgent: aaep-term-demo\n") {
		t.Errorf("untrusted: exit %d\n%s", code, out)
	}

	tio, _, out, _ = term.Test()
	if code := runManifest(context.Background(), []string{"--json", unsigned}, tio, noEnv); code != 1 {
		t.Fatalf("unsigned: exit %d\n%s", code, out)
	}
	var rep subscriber.ManifestReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Signed || rep.Verified || rep.Manifest == nil || rep.Manifest.AgentID != "aaep-term-demo" ||
		rep.Summary != "The producer's manifest is not signed." || !strings.HasSuffix(rep.From, "/.well-known/aaep-manifest.json") {
		t.Errorf("report %+v", rep)
	}

	// A producer without a handshake: the well-known address, and a note.
	tio, _, out, _ = term.Test()
	if code := runManifest(context.Background(), []string{legacy}, tio, noEnv); code != 1 {
		t.Fatalf("legacy: exit %d\n%s", code, out)
	}
	if !strings.Contains(out.String(), "did not negotiate") || !strings.Contains(out.String(), "publishes no manifest") {
		t.Errorf("legacy:\n%s", out)
	}

	for _, args := range [][]string{{}, {"a", "b"}, {"file:x.ndjson"}, {"--exec"}, {"--nope", signed}} {
		tio, _, _, errOut := term.Test()
		if code := runManifest(context.Background(), args, tio, noEnv); code != 2 || errOut.Len() == 0 {
			t.Errorf("%q: exit %d, %q", args, code, errOut)
		}
	}
}

func noEnv(string) string { return "" }

// Events of types the manifest does not claim are reported, once a type.
func TestManifestEventTypes(t *testing.T) {
	t.Parallel()
	key, dir := manifestKey(t, "ES256")
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), ManifestKey: key, ManifestFault: producer.ManifestNarrow})
	r := startListener(t, "--plain", "--auto-reply", "reject", "--require-signed-manifest", "--trusted-keys", dir, url)
	r.wait(t)
	const missing = "The producer sent an event of type aaep:agent.tool.invoked, which its manifest does not list among the types it emits."
	if n := strings.Count(r.stderr(), missing); n != 1 {
		t.Errorf("reported %d times:\n%s", n, r.stderr())
	}
	if strings.Contains(r.stderr(), "type aaep:agent.session.started") {
		t.Errorf("a claimed type was reported:\n%s", r.stderr())
	}
}
