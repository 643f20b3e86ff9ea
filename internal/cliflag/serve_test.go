package cliflag

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// Serve listens on every binding asked for, says where once each listens
// (a line each, addresses as they can be dialled), serves until stopped,
// and refuses an address that is not HOST:PORT as a usage error.
func TestServe(t *testing.T) {
	t.Parallel()
	runs := producer.NewRuns(func() *producer.Producer { return producer.New(producer.Options{}) }, nil)
	defer runs.Close()
	sock := filepath.Join(t.TempDir(), "p.sock")
	stop := make(chan struct{})
	var at Served
	err := Serve(context.Background(), runs, Where{Addr: "127.0.0.1:0", GRPC: true, Unix: sock}, stop, func(s Served) {
		at = s
		resp, err := http.Get("http://" + s.HTTP + "/no-such-path")
		if err != nil {
			t.Errorf("HTTP is not served at %s: %v", s.HTTP, err)
		} else {
			resp.Body.Close()
		}
		close(stop)
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := at.Lines()
	if at.HTTP == "" || at.GRPC == "" || at.Unix != sock || len(lines) != 5 ||
		!slices.Contains(lines, "gRPC: grpc://"+at.GRPC) || !slices.Contains(lines, "Unix socket: unix:"+sock) {
		t.Errorf("served at %+v, said %q", at, lines)
	}
	if n := len(Served{HTTP: "h:1"}.Lines()); n != 3 {
		t.Errorf("%d lines for HTTP and WebSocket alone, want 3", n)
	}
	var ue *UsageError
	if err := Serve(context.Background(), runs, Where{Addr: "8080"}, nil, func(Served) { t.Error("started") }); !errors.As(err, &ue) {
		t.Errorf("--addr 8080: %v, want a usage error", err)
	}
}
