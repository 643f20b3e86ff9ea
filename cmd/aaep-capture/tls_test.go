package main

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

// An https:// or wss:// producer whose certificate a private authority
// signed is recorded with --ca FILE; without it aaep-capture refuses the
// connection and says how to give the authority.
func TestCaptureTLS(t *testing.T) {
	p := capturetest.DemoProducer(t, false)
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	srv.StartTLS()
	t.Cleanup(func() { p.Close(); srv.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	wss := "wss" + strings.TrimPrefix(srv.URL, "https") + protocol.PathWebSocket
	for _, url := range []string{srv.URL, wss} {
		t.Run(url[:strings.Index(url, ":")], func(t *testing.T) {
			path, _ := captureFrom(t, url, "--ca", ca, "--max-events", "5")
			if _, recs := capturetest.ReadAll(t, path); len(recs) == 0 {
				t.Fatalf("nothing recorded from %s", url)
			}

			tio, _, _, errOut := term.Test()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out := filepath.Join(t.TempDir(), "refused.aaep")
			if code := run(ctx, []string{"--endpoint", url, "--output", out}, tio); code != 1 {
				t.Fatalf("without --ca: exit %d, want 1\n%s", code, errOut)
			}
			if !strings.Contains(errOut.String(), "--ca FILE") {
				t.Errorf("without --ca, stderr does not say how to give the authority:\n%s", errOut)
			}
		})
	}
}
