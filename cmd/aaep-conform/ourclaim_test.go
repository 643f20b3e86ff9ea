package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// stdioProducerEnv makes the test binary our producer on standard input and
// output (TestMain), for the exec: endpoint.
const stdioProducerEnv = "AAEP_CONFORM_TEST_STDIO_PRODUCER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioProducerEnv) != "" {
		p, err := ourProducer()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer p.Close()
		if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// ourProducer is the producer of this repository as aaep-replay serve
// --demo runs it (the built-in demo scenarios), without pauses, its
// manifest signed.
func ourProducer() (*producer.Producer, error) {
	scenarios, err := aaepterm.DemoScenarios(nil)
	if err != nil {
		return nil, err
	}
	key, err := producer.NewManifestKey("ES256")
	if err != nil {
		return nil, err
	}
	return producer.New(producer.Options{Scenarios: scenarios, ManifestKey: key}), nil
}

// Our own claim (issue 17, item 5): aaep-conform producer, the command as a
// user runs it, against our producer at Level 3 with --fast, over SSE in
// both layouts, WebSocket, stdio and a Unix socket: every test passes, the
// claim is printed, exit 0, in under 60 seconds each. This is the test CI
// runs for the README's claim; it fails until the producer catalogue
// (conform.TestProducer) is built.
func TestOurProducerIsLevel3Conformant(t *testing.T) {
	for _, binding := range []string{"sse-spec", "sse-legacy", "websocket", "stdio", "unix"} {
		t.Run(binding, func(t *testing.T) {
			p, err := ourProducer()
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(p)
			t.Cleanup(func() { p.Close(); srv.Close() })
			endpoint, extra := srv.URL, []string(nil)
			switch binding {
			case "sse-spec":
				extra = []string{"--layout", "spec"}
			case "sse-legacy":
				extra = []string{"--layout", "legacy"}
			case "websocket":
				endpoint = "ws" + strings.TrimPrefix(srv.URL, "http") + protocol.PathWebSocket
			case "stdio":
				self, err := os.Executable()
				if err != nil {
					t.Fatal(err)
				}
				t.Setenv(stdioProducerEnv, "1")
				endpoint = "exec:" + self
			case "unix":
				path := filepath.Join(t.TempDir(), "p.sock")
				ln, err := producer.ListenUnix(path)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				go func() { _ = p.ServeUnix(ctx, ln) }()
				t.Cleanup(cancel)
				endpoint = "unix:" + path
			}
			report := filepath.Join(t.TempDir(), "report.json")
			tio, _, out, errOut := term.Test()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			code := run(ctx, append([]string{"producer", endpoint, "--level", "3", "--fast", "--json", report}, extra...), systemDeps(tio, func(string) string { return "" }))
			took := time.Since(start)
			t.Logf("%s: exit %d in %v", binding, code, took.Round(time.Millisecond))
			if code != exitConforming {
				t.Fatalf("exit %d, want 0 (Level 3 conformant)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(out.String(), " is AAEP Level 3 conformant, verified by aaep-conform version ") {
				t.Errorf("no claim:\n%s", out)
			}
			if took > 60*time.Second {
				t.Errorf("a full Level 3 run with --fast took %v, more than 60 s", took)
			}
		})
	}
}

// aaep-conform subscriber against aaep-listen at Level 3: the suite runs
// the listener (built here) on its scripted producer and drives its input.
// It fails until the subscriber catalogue (conform.TestSubscriber) is built.
func TestAaepListenIsLevel3Conformant(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "aaep-listen")
	build := exec.Command("go", "build", "-o", bin, "github.com/aaep-term/aaep-term/cmd/aaep-listen")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build aaep-listen: %v\n%s", err, b)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the listener's reply-signing key, made on first use, stays here
	tio, _, out, errOut := term.Test()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, []string{"subscriber", "--level", "3", "--fast", "--exec", bin + " --plain {endpoint}"}, systemDeps(tio, func(string) string { return "" }))
	if code != exitConforming {
		t.Fatalf("exit %d, want 0 (Level 3 conformant)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out.String(), " is AAEP Level 3 conformant, verified by aaep-conform version ") {
		t.Errorf("no claim:\n%s", out)
	}
}
