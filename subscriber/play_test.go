package subscriber_test

// play_test.go: the client over a recording (aaep-replay play) makes no
// network request, whatever the recording names.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

func TestRecordedAcceptanceFetchesNoManifest(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	rec := `{"type":"subscription.accepted","subscription_id":"sub_m1","aaep_version":"0.1","manifest_uri":"` + srv.URL + `/manifest.json","producer":{"agent_id":"a","manifest_uri":"` + srv.URL + `/m2.json"},"honored_capabilities":{}}` + "\n"
	conn := transport.NewNDJSONConn(strings.NewReader(rec), transport.FileOptions{})
	ctx := context.Background()
	c := subscriber.New(ctx, conn, "file:recording.jsonl", subscriber.Config{})
	var said []string
	for {
		u, err := c.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		said = append(said, u.Text)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("a recorded acceptance made %d requests for its manifest: %q", n, said)
	}
	if !strings.Contains(strings.Join(said, "\n"), "it is not fetched when reading a file") {
		t.Errorf("the recorded manifest is not told: %q", said)
	}
}
