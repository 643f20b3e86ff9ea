package braille

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// brltty is a real BRLTTY driving a virtual display that the test plays.
type brltty struct {
	dir     string
	opts    Options
	cmd     *exec.Cmd
	display net.Conn

	mu      sync.Mutex
	visuals []string // every Visual line BRLTTY showed, in order
}

// startBrltty starts brltty with the vr driver on a width-cell display.
func startBrltty(t *testing.T, width int) *brltty {
	t.Helper()
	return startBrlttyAuth(t, width, "")
}

// startBrlttyAuth is startBrltty with BrlAPI asking for the key in keyFile ("" for none).
func startBrlttyAuth(t *testing.T, width int, keyFile string) *brltty {
	t.Helper()
	if _, err := exec.LookPath("brltty"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("brltty is required under CI: %v", err)
		}
		t.Skip("brltty not installed")
	}
	dir, err := os.MkdirTemp("", "brl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, "vr.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A socket of our own for BrlAPI, so tests never meet another BRLTTY.
	apiDir := filepath.Join(dir, "api")
	os.Mkdir(apiDir, 0o755)
	b := &brltty{dir: dir}
	host := fmt.Sprintf("%d", 20+os.Getpid()%70)
	auth := "none"
	if keyFile != "" {
		auth = "keyfile:" + keyFile
	}
	cmd := exec.Command("brltty", "-n", "-e", "-q", "-b", "vr", "-d", "client:"+filepath.Join(dir, "vr.sock"),
		"-x", "no", "-s", "no", "-A", "host=:"+host+",auth="+auth, "-W", dir, "-U", dir,
		"-P", filepath.Join(dir, "brltty.pid"), "-F", filepath.Join(dir, "prefs"), "-l", "warning")
	cmd.Stderr, cmd.Stdout = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatalf("start brltty: %v", err)
	}
	b.cmd = cmd
	t.Cleanup(b.stop)
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatalf("brltty did not connect to the display: %v", err)
	}
	b.display = conn
	fmt.Fprintf(conn, "cells %d\n", width)
	go b.read()
	b.opts = Options{Host: ":" + host, KeyFile: keyFile}
	// Wait for BrlAPI to listen.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := Dial(context.Background(), b.opts)
		if err == nil {
			cols, _, serr := c.DisplaySize(context.Background())
			c.Close()
			if serr == nil && cols == width {
				return b
			}
			err = fmt.Errorf("display size %d, %v", cols, serr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("BrlAPI did not come up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (b *brltty) read() {
	sc := bufio.NewScanner(b.display)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Visual "); ok {
			b.mu.Lock()
			b.visuals = append(b.visuals, strings.Trim(rest, "\""))
			b.mu.Unlock()
		}
	}
}

func (b *brltty) stop() {
	if b.display != nil {
		b.display.Close()
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

// press injects a key as the display would, e.g. "ROUTE 3", "FWINRT".
func (b *brltty) press(t *testing.T, key string) {
	t.Helper()
	if _, err := fmt.Fprintf(b.display, "%s\n", key); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // the vr driver drops keys that come faster

}

// waitVisual waits until the display shows a line for which ok is true.
func (b *brltty) waitVisual(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		var last string
		if n := len(b.visuals); n > 0 {
			last = b.visuals[n-1]
		}
		seen := append([]string(nil), b.visuals...)
		b.mu.Unlock()
		if ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("display never showed %s; it showed %q", what, seen)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func TestClientAgainstBrltty(t *testing.T) {
	b := startBrltty(t, 20)
	ctx := context.Background()
	c, err := Dial(ctx, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cols, rows, err := c.DisplaySize(ctx)
	if err != nil || cols != 20 || rows != 1 {
		t.Fatalf("display size %d×%d, %v", cols, rows, err)
	}
	if err := c.EnterTTYMode(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, "héllo braille", cols, 1); err != nil {
		t.Fatal(err)
	}
	b.waitVisual(t, "the text", func(s string) bool { return strings.HasPrefix(s, "héllo braille") })
	b.press(t, "ROUTE 3")
	k, err := c.ReadKey(ctx)
	if cell, ok := k.Route(); err != nil || !ok || cell != 3 {
		t.Fatalf("key %#x %v, want ROUTE 3", uint64(k), err)
	}
	b.press(t, "FWINRT")
	time.Sleep(100 * time.Millisecond)
	// A request made while a key waits still gets its own reply.
	if _, _, err := c.DisplaySize(ctx); err != nil {
		t.Fatal(err)
	}
	k, err = c.ReadKey(ctx)
	if err != nil || !k.is(cmdFWINRT) {
		t.Fatalf("key %#x %v, want FWINRT", uint64(k), err)
	}
	if err := c.LeaveTTYMode(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestClientKeyFileAuth(t *testing.T) {
	key := filepath.Join(t.TempDir(), "brlapi.key")
	os.WriteFile(key, []byte("0123456789abcdef"), 0o600)
	b := startBrlttyAuth(t, 12, key) // it dials with the right key before returning
	wrong := filepath.Join(t.TempDir(), "wrong.key")
	os.WriteFile(wrong, []byte("not the key"), 0o600)
	o := b.opts
	o.KeyFile = wrong
	if c, err := Dial(context.Background(), o); err == nil {
		c.Close()
		t.Fatal("a wrong key was accepted")
	}
}
