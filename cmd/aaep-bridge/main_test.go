package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

func TestMain(m *testing.M) {
	if s := os.Getenv(acptest.Env); s != "" {
		os.Exit(acptest.Main(s, os.Stdin, os.Stdout)) // this binary as a scripted ACP agent
	}
	os.Exit(m.Run())
}

// --help says every flag; a missing command is a usage error (exit 2).
func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	tio := term.New(strings.NewReader(""), &out, &errOut, false, false, func(string) string { return "" }, true)
	if code := run(context.Background(), []string{"--help"}, tio); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, flag := range []string{"-addr", "-local-dir", "-stdio", "-name", "-agent-mode", "-task", "-dir", "agtask:task", "aaep-listen --local"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not say %s:\n%s", flag, out.String())
		}
	}
	if code := run(context.Background(), []string{"--name", "x"}, tio); code != 2 || !strings.Contains(errOut.String(), "after --") {
		t.Errorf("no command: exit %d, %q", code, errOut.String())
	}
}

// aaep-bridge serves the scripted agent on every binding, one line each;
// a subscriber on the Unix socket gives it its task and accepts its
// permission request, and the tool runs; the agent ends with the command.
func TestBridgeServesAgent(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, local := t.TempDir(), filepath.Join(t.TempDir(), "aaep")
	pr, pw := io.Pipe()
	tio := term.New(strings.NewReader(""), pw, io.Discard, false, false, func(string) string { return "" }, true)
	ctx, cancel := context.WithCancel(context.Background())
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--name", "code", "--dir", dir, "--local-dir", local, "--", "env", acptest.Env + "=happy", exe, "-test.run=^$"}, tio)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	urls := map[string]string{}
	for len(urls) < 4 && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "Serving code at "); ok {
			urls[strings.SplitN(u, ":", 2)[0]] = u
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	for _, scheme := range []string{"http", "ws", "grpc", "unix"} {
		if urls[scheme] == "" {
			t.Fatalf("no %s endpoint said: %v", scheme, urls)
		}
	}
	if want := "unix:" + filepath.Join(local, "code.sock"); urls["unix"] != want {
		t.Errorf("socket %s, want %s", urls["unix"], want)
	}
	c := subscriber.Start(ctx, urls["unix"], subscriber.Config{
		Identity: session.Identity{ID: "bridge-test", Name: "bridge-test", Version: "1"},
		Terms:    session.Terms{CanConfirm: true, CanClarify: true}, Tasks: true,
	})
	defer c.Close()
	told, accepted := false, false
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("the subscription ended: %v", err)
		}
		if !told && c.TakesTasks() {
			if err := c.Tell(ctx, "write the proof file"); err != nil {
				t.Fatal(err)
			}
			told = true
		}
		if p := u.Delivery.Prompt; u.Kind == subscriber.KindDelivery && p != nil && !accepted {
			if err := c.Confirm(ctx, p.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			accepted = true
		}
		if ev := u.Delivery.Event; u.Kind == subscriber.KindDelivery && ev != nil && ev.Type == protocol.TypeSessionCompleted && accepted {
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err != nil {
		t.Errorf("no proof file after accept: %v", err)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Errorf("exit %d", code)
	}
}
