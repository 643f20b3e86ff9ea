package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/replay"

	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/protocol"
)

// await reads lines from ch until one contains want, and returns it.
func await(t *testing.T, ctx context.Context, ch <-chan string, want, who string) string {
	t.Helper()
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				t.Fatalf("%s ended before saying %q", who, want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-ctx.Done():
			t.Fatalf("%s did not say %q in time", who, want)
		}
	}
}

// serve --demo end to end, on every binding: it says where each listens;
// the real listener connects, the user answers the prompt, the producer
// (live: it waited) settles it by that answer; SIGINT stops it cleanly.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	bin := ttytest.Build(t, ".", "aaep-replay")
	listen := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	for _, tc := range []struct {
		name, label string
		flags       []string
	}{
		{"sse-spec", "HTTP, spec layout: ", []string{"--layout", "spec"}},
		{"sse-legacy", "HTTP, spec layout: ", []string{"--layout", "legacy"}}, // the same base URL
		{"websocket", "WebSocket: ", nil},
		{"grpc", "gRPC: ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := startServe(t, ctx, bin, "serve", "--demo", "--demo-scenarios", "confirm")
			said := srv.said
			endpoint := srv.bindings(t, ctx)[tc.label]

			home := t.TempDir()
			lctx, lcancel := context.WithCancel(ctx)
			defer lcancel()
			cmd := exec.CommandContext(lctx, listen, append([]string{endpoint, "--no-sign", "--plain"}, tc.flags...)...)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=dumb")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			lout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			cmd.WaitDelay = 5 * time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				lcancel()
				_ = cmd.Wait()
			}()
			heard := replay.ReadCommands(lout)
			await(t, ctx, heard, "To answer, type: accept 1, or: reject 1.", "aaep-listen")
			if _, err := io.WriteString(stdin, "reject 1\n"); err != nil {
				t.Fatal(err)
			}
			await(t, ctx, said, "rejected (reject)", "serve --demo")

			srv.stop(t, ctx, true)
		})
	}
}

// serve --demo ends its streams once the scenarios have played (issue 24
// item 14), and says so: the real aaep-listen and aaep-capture both end by
// themselves, the capture holding the whole run; one that connects after
// the run hears a fresh run from the start. Before, the streams stayed
// open for ever: aaep-capture recorded on and aaep-listen sat silent.
func TestServeDemoEndsStreams(t *testing.T) {
	t.Parallel()
	bin := ttytest.Build(t, ".", "aaep-replay")
	listen := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	capture := ttytest.Build(t, "../aaep-capture", "aaep-capture")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServe(t, ctx, bin, "serve", "--demo", "--demo-scenarios", "happy")
	endpoint := srv.bindings(t, ctx)["HTTP, spec layout: "]
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=dumb")

	ends := func(name string, args ...string) string {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = env
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v (it ended only when the test did?)\n%s", name, err, out)
		}
		return string(out)
	}
	file := filepath.Join(t.TempDir(), "demo.aaep")
	var wg sync.WaitGroup
	var heard string
	wg.Go(func() { heard = ends(listen, endpoint, "--no-sign", "--plain") })
	wg.Go(func() { ends(capture, endpoint, "--output", file, "--no-progress") })
	wg.Wait()
	if !strings.Contains(heard, "Finished") {
		t.Errorf("aaep-listen ended without hearing the session finish:\n%s", heard)
	}
	recorded, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recorded), protocol.TypeSessionCompleted) {
		t.Errorf("the capture ends before the session completed:\n%s", recorded)
	}
	await(t, ctx, srv.said, "its streams are ended", "serve --demo")

	// After the run: a fresh run from the start.
	again := ends(listen, endpoint, "--no-sign", "--plain")
	if !strings.Contains(again, "Finished") {
		t.Errorf("a listener after the run heard no fresh run:\n%s", again)
	}
	srv.stop(t, ctx, true)
}
