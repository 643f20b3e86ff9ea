package capture

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// A subscriber receives the served capture in both layouts, and its reply
// reaches the server.
func TestServe(t *testing.T) {
	f, err := os.Open("testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadDocuments(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var replies []string
	srv := NewServer(recs, ServeOptions{Speed: 100, IdleLimit: 10 * time.Millisecond, OnReply: func(path string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		replies = append(replies, path+" "+string(body))
	}})
	if srv.Len() != 18 {
		t.Fatalf("serving %d messages, want the 18 received events", srv.Len())
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, tt := range []struct {
		layout    transport.Layout
		request   []byte
		accepted  bool
		replyPath string
	}{
		{transport.LayoutSpec, []byte(`{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":{}}`), true, "/aaep/v1/replies"},
		{transport.LayoutLegacy, nil, false, "/messages"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := transport.Dial(ctx, hs.URL, transport.Options{SSE: transport.SSEOptions{Layout: tt.layout, SubscriptionRequest: tt.request}})
		if err != nil {
			t.Fatal(err)
		}
		var events, accepted int
		for {
			fr, err := conn.Recv(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if protocol.PeekType(fr.Data) == protocol.TypeSubscriptionAccepted {
				accepted++
				continue
			}
			events++
		}
		if events != 18 || (accepted == 1) != tt.accepted {
			t.Errorf("layout %v: %d events, %d acceptances", tt.layout, events, accepted)
		}
		reply := `{"type":"confirmation.reply","reply_token":"rpl_clean01token","decision":"reject"}`
		if err := conn.Send(ctx, []byte(reply)); err != nil {
			t.Errorf("send a reply: %v", err)
		}
		conn.Close()
		cancel()
		mu.Lock()
		if len(replies) == 0 || !strings.HasPrefix(replies[len(replies)-1], tt.replyPath+" ") || !strings.Contains(replies[len(replies)-1], "reject") {
			t.Errorf("replies received: %q", replies)
		}
		mu.Unlock()
	}
}
