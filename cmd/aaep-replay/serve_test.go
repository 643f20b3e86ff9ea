package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/replay"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// serve → aaep-listen, end to end on every binding: the real aaep-replay
// serve says where each binding listens, the real listener, with
// --auto-reply reject, hears the served capture, and its rejections of
// both prompts reach the replaying producer, which prints them with the
// binding they came by.
func TestServeToListener(t *testing.T) {
	t.Parallel()
	replay := ttytest.Build(t, ".", "aaep-replay")
	listen := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	for _, tc := range []struct {
		name, label, via string
		flags            []string
	}{
		{"websocket", "WebSocket: ", "/aaep/v1/ws", nil},
		{"sse-spec", "HTTP, spec layout: ", "/aaep/v1/replies", []string{"--layout", "spec"}},
		{"sse-legacy", "HTTP, spec layout: ", "/messages", []string{"--layout", "legacy"}}, // the same base URL
		{"grpc", "gRPC: ", "gRPC", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// The streams stay open until the listener quits, once serve has
			// received both rejections: with --linger 3s, at load 20 the
			// rejections came after the stream had ended.
			srv := startServe(t, ctx, replay, "serve", "--speed", "2", "--linger", "1m", corpus+"clean.aaep")
			said := srv.said
			await(t, ctx, said, "Serving 18 messages of ", "serve")
			endpoint := srv.bindings(t, ctx)[tc.label]
			await(t, ctx, said, "Waiting for a subscriber; each one gets the capture from its start.", "serve")

			stdin, wait := startRejecting(t, ctx, listen, append([]string{endpoint}, tc.flags...)...)
			// The producer prints what it received in the order it came.
			for _, tok := range []string{"rpl_clean01token", "rpl_clean02token"} {
				l := await(t, ctx, said, tok, "serve")
				if !strings.HasPrefix(l, "Received on "+tc.via+": ") || !strings.Contains(l, `"decision":"reject"`) {
					t.Errorf("the rejection of %s was received as %q, want on %s", tok, l, tc.via)
				}
			}
			fmt.Fprintln(stdin, "quit")
			heard := wait()
			stdin.Close()
			if !strings.Contains(heard, "Transfer $500 to savings") {
				t.Errorf("the listener did not announce the prompt:\n%s", heard)
			}
			srv.stop(t, ctx, true)
		})
	}
}

// aaep-listen runs aaep-replay serve --stdio as its producer (exec:) and
// hears the capture in JSON-RPC on the child's standard input and output;
// serve says nothing on its standard output, which carries the protocol.
func TestServeStdio(t *testing.T) {
	t.Parallel()
	replay := ttytest.Build(t, ".", "aaep-replay")
	listen := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	heard := listenRejecting(t, ctx, listen, "exec:"+replay+" serve --stdio --speed 0 --linger 1s "+corpus+"clean.aaep")
	for _, want := range []string{"Transfer $500 to savings", "Bank Helper is starting."} {
		if !strings.Contains(heard, want) {
			t.Errorf("the listener did not say %q:\n%s", want, heard)
		}
	}
}

// serve --once ends by itself once one stream has sent the whole capture.
func TestServeOnce(t *testing.T) {
	t.Parallel()
	replay := ttytest.Build(t, ".", "aaep-replay")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := startServe(t, ctx, replay, "serve", "--once", "--speed", "0", "--linger", "0s", corpus+"clean.aaep")
	events := strings.TrimSuffix(srv.bindings(t, ctx)["HTTP, deployed layout: "], ",")
	resp, err := httpGet(ctx, events)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(resp, []byte("\ndata: "))
	if n != 18 {
		t.Errorf("the stream held %d events, want 18", n)
	}
	await(t, ctx, srv.said, "A stream has sent the whole capture.", "serve")
	srv.stop(t, ctx, false)
}

// listenRejecting runs the real aaep-listen with args, rejecting every
// prompt (--auto-reply reject), until it ends by itself, and returns what it
// said on standard output.
func listenRejecting(t *testing.T, ctx context.Context, listen string, args ...string) string {
	t.Helper()
	stdin, wait := startRejecting(t, ctx, listen, args...)
	defer stdin.Close()
	return wait()
}

// startRejecting starts the listener as listenRejecting does; wait waits
// for it to end and returns what it said. Standard input stays open until
// it is closed: no "end of input"; a line "quit" written to it ends the
// listener.
func startRejecting(t *testing.T, ctx context.Context, listen string, args ...string) (stdin io.WriteCloser, wait func() string) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, listen, append(args, "--auto-reply", "reject", "--no-sign", "--plain")...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=dumb")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, func() string {
		t.Helper()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("aaep-listen: %v\n%s\n%s", err, out.String(), errOut.String())
		}
		return out.String()
	}
}

// served is a running aaep-replay serve and what it says, line by line.
type served struct {
	cmd  *exec.Cmd
	said <-chan string
}

// startServe starts the aaep-replay binary with args.
func startServe(t *testing.T, ctx context.Context, bin string, args ...string) *served {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &served{cmd: cmd, said: replay.ReadCommands(out)}
}

// bindingLabels begin the lines saying where each binding listens.
var bindingLabels = []string{"HTTP, spec layout: ", "HTTP, deployed layout: ", "WebSocket: ", "gRPC: "}

// bindings reads the lines saying where each binding listens and returns
// the address each names, by label.
func (s *served) bindings(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	at := map[string]string{}
	for _, label := range bindingLabels {
		l := await(t, ctx, s.said, label, "serve")
		addr := strings.Fields(strings.TrimPrefix(l, label))[0]
		// An address is used as printed: one copied with a full stop or a
		// bracket glued to it does not connect.
		if strings.ContainsAny(addr[len(addr)-1:], ".,;:)") {
			t.Errorf("%q: the address %q has punctuation glued to it", l, addr)
		}
		at[label] = addr
	}
	return at
}

// stop waits for the server to say it stopped, after SIGINT when interrupt
// is set, and for it to exit cleanly.
func (s *served) stop(t *testing.T, ctx context.Context, interrupt bool) {
	t.Helper()
	if interrupt {
		if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	await(t, ctx, s.said, "Stopped serving.", "serve")
	for range s.said {
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("serve %s: %v", strings.Join(s.cmd.Args[1:], " "), err)
	}
}

// httpGet returns the body of url, read to its end.
func httpGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
