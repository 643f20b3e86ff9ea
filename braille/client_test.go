package braille

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/braille/brltest"
)

func TestClientAgainstBrltty(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 20, "")
	ctx := context.Background()
	c, err := Dial(ctx, Options{Host: b.Host})
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
	b.WaitVisual(t, "the text", func(s string) bool { return strings.HasPrefix(s, "héllo braille") })
	b.Press(t, "ROUTE 3")
	k, err := c.ReadKey(ctx)
	if cell, ok := k.Route(); err != nil || !ok || cell != 3 {
		t.Fatalf("key %#x %v, want ROUTE 3", uint64(k), err)
	}
	b.Press(t, "FWINRT")
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
	t.Parallel()
	key := filepath.Join(t.TempDir(), "brlapi.key")
	os.WriteFile(key, []byte("0123456789abcdef"), 0o600)
	b := brltest.Start(t, 12, key)
	c, err := Dial(context.Background(), Options{Host: b.Host, KeyFile: key})
	if err != nil {
		t.Fatalf("the right key: %v", err)
	}
	c.Close()
	wrong := filepath.Join(t.TempDir(), "wrong.key")
	os.WriteFile(wrong, []byte("not the key"), 0o600)
	o := Options{Host: b.Host, KeyFile: wrong}
	if c, err := Dial(context.Background(), o); err == nil {
		c.Close()
		t.Fatal("a wrong key was accepted")
	}
}
