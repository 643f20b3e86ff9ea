package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/realagent"
	"github.com/aaep-term/aaep-term/internal/testpar"
	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// TestMain keeps every listener these tests start away from the real
// config directory: keys made on first use go to a temporary one.
func TestMain(m *testing.M) {
	if os.Getenv(childProducerEnv) != "" {
		os.Exit(childProducer()) // exec_test.go: this binary as a stdio producer
	}
	dir, err := os.MkdirTemp("", "aaep-listen-config")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	keepGoCaches()       // before HOME moves: "go build" in the tests keeps its caches
	realagent.PinCache() // and the real agents are still found
	os.Setenv("XDG_CONFIG_HOME", dir)
	os.Setenv("HOME", dir)
	testpar.Widen(4) // its tests mostly wait on peers and processes
	code := ttytest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// keepGoCaches pins GOCACHE and GOMODCACHE to where they are now, so that
// the listener binary the tests build with a temporary HOME reuses the build
// cache and the module cache instead of starting cold (and downloading).
func keepGoCaches() {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return // the build says what is wrong, if it fails
	}
	if dirs := strings.Split(strings.TrimSpace(string(out)), "\n"); len(dirs) == 2 {
		os.Setenv("GOCACHE", dirs[0])
		os.Setenv("GOMODCACHE", dirs[1])
	}
}

// keyFile makes a signing key in a temporary file.
func keyFile(t *testing.T) (string, *sigrpl.Key) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.pem")
	k, _, err := sigrpl.LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, k
}

// A producer that takes only signed replies from a pinned key settles the
// prompt with the listener's signed answer, over HTTP, WebSocket and gRPC
// (the framed sigrpl:signed.reply form on the last two).
func TestSignedAnswerAccepted(t *testing.T) {
	t.Parallel()
	path, k := keyFile(t)
	for _, binding := range []string{"sse", "websocket", "grpc"} {
		t.Run(binding, func(t *testing.T) {
			opts := producer.Options{Scenarios: scenarios(t, "confirm"), PinnedKeys: []string{k.KID()}, RequireSignedReplies: true}
			var p *producer.Producer
			var url string
			switch binding {
			case "grpc":
				p, url = serveProducerGRPC(t, opts)
			case "websocket":
				p, url = serve(t, opts)
				url = "ws" + strings.TrimPrefix(url, "http") + protocol.PathWebSocket
			default:
				p, url = serve(t, opts)
			}
			r := startListener(t, "--plain", "--key", path, url)
			r.waitOutput(t, "Confirmation needed")
			fmt.Fprintln(r.stdin, "accept 1\nyes")
			r.waitOutput(t, "signed with your key "+k.KID()[:8]+" for this producer and this prompt only; the producer checks signatures")
			r.wait(t)
			if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Accepted {
				t.Fatalf("producer outcomes %+v\n%s", outs, r.stdout())
			}
		})
	}
}

// A signature the producer refuses (here: its clock is an hour ahead, so
// the signature has expired) does not settle the prompt, and the user is
// told the answer was not taken. The prompt waits its full two minutes:
// with three seconds, a busy machine let it time out before the answer
// came, and the refusal named the timeout, not the signature.
func TestRefusedSignatureAnnounced(t *testing.T) {
	t.Parallel()
	path, _ := keyFile(t)
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"),
		RequireSignedReplies: true, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	r := startListener(t, "--plain", "--key", path, url)
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "accept 1\nyes")
	r.waitOutput(t, "Could not send your answer to prompt 1")
	if !strings.Contains(r.stdout(), "signature") {
		t.Errorf("the refusal does not name the signature:\n%s", r.stdout())
	}
	for _, o := range p.Outcomes() {
		if o.Resolution == producer.Accepted {
			t.Fatalf("a refused signature settled the prompt: %+v", o)
		}
	}
}

// Without a key the answer still goes, and the user is told it is unsigned.
func TestUnsignedAnswerAnnounced(t *testing.T) {
	t.Parallel()
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--no-sign", url)
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "reject 1")
	r.waitOutput(t, "sent unsigned (--no-sign)")
	r.wait(t)
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Rejected {
		t.Fatalf("producer outcomes %+v", outs)
	}
}

// "aaep-listen key" makes the key once, 0600, in the config directory and
// shows the same thumbprint every time.
func TestKeyCommand(t *testing.T) {
	t.Parallel()
	config := t.TempDir()
	key := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(listenerBinary(t), append([]string{"key"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("key %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	first, second := key(), key()
	if first != second || !strings.HasPrefix(first, "Thumbprint: ") {
		t.Fatalf("key printed\n%s\nthen\n%s", first, second)
	}
	path := filepath.Join(config, "aaep-term", sigrpl.KeyFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %s: %v %v", path, fi, err)
	}
	k, err := sigrpl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, k.KID()) {
		t.Errorf("printed %s, key %s", first, k.KID())
	}
	other, ok := keyFile(t)
	if got := key("--key", other); !strings.Contains(got, ok.KID()) {
		t.Errorf("--key: %s, want %s", got, ok.KID())
	}
	// A --key file not there yet is made, as the default one is (issue 15;
	// this once asserted that it was refused).
	fresh := filepath.Join(config, "fresh.pem")
	got := key("--key", fresh)
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(got, "Key file: "+fresh) {
		t.Errorf("--key NEWFILE: %v %v\n%s", fi, err, got)
	}
}
