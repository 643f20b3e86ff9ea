package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// The real binary, stopped by an interrupt as Control-C sends it, closes
// its subscription and ends normally.
func TestBinaryInterruptCloses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	got := &capturetest.Sent{}
	srv := capturetest.LiveProducer(t, "", producer.Options{OnMessage: got.On})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.aaep")
	cmd := exec.CommandContext(ctx, bin, "--endpoint", srv.URL, "-o", path)
	stderr := capturetest.NewWatch()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.Wait(t, ctx, "Subscribed to", 1)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("aaep-capture: %v\n%s", err, stderr.String())
	}
	if n := len(got.OfType(protocol.TypeSubscriptionClose)); n != 1 {
		t.Errorf("the producer was sent %d subscription.close, want 1; standard error:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Stopped.") {
		t.Errorf("standard error:\n%s", stderr.String())
	}
}

// A hostile rejection can neither put an escape sequence on standard
// error nor start a line of its own: not in the recording's lines, not in
// the error aaep-capture says last.
func TestHostileRejectionOneLine(t *testing.T) {
	opts := producer.Options{}
	opts.Refuse = &producer.Refusal{Code: "x\x1b[31m\nForged: code", Message: "fine\nForged: all accepted\x1b[2J\u2066", RetryAfter: -1}
	srv := capturetest.LiveProducer(t, "", opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tio, _, _, stderr := term.Test()
	if code := run(ctx, []string{"--endpoint", srv.URL, "-o", filepath.Join(t.TempDir(), "s.aaep"), "--no-progress"}, tio); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	out := stderr.String()
	if !strings.Contains(out, "all accepted") {
		t.Fatalf("the producer's message is not told:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\u2066") {
		t.Errorf("an escape or a direction control reached standard error: %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Forged") {
			t.Errorf("the producer started a line: %q", out)
		}
	}
}

// No subscription.request is built by hand in aaep-capture: the client
// makes it.
func TestNoHandBuiltRequest(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"TypeSubscriptionRequest", "supports_confirmation_reply", "TypeConfirmationReply"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s builds protocol messages itself (%s): the subscriber client does", name, bad)
			}
		}
	}
}

// buildBinary builds aaep-capture, once for the tests, and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	return ttytest.Build(t, ".", "aaep-capture")
}

func TestMain(m *testing.M) { os.Exit(ttytest.Main(m)) } // the binary the tests build
