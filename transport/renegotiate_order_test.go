package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The producer's answer to a subscription.renegotiate comes back as the
// body of the POST on HTTP. It takes its place in the stream when Send
// receives it: once Send has returned, the answer is queued, before
// anything the stream brings afterwards, and nothing races the reader to
// put it there.
func TestSSERenegotiationAnswerInOrder(t *testing.T) {
	events := make(chan string)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /aaep/v1/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/aaep/v1/events")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"type":"subscription.accepted","subscription_id":"sub_1"}`)
	})
	mux.HandleFunc("GET /aaep/v1/events", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		for {
			select {
			case e := <-events:
				write(w, "data: "+e+"\n\n")
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /aaep/v1/replies", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"subscription.accepted","subscription_id":"sub_1","honored_capabilities":{}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, SSEOptions{Layout: LayoutSpec, SubscriptionRequest: []byte(`{"type":"subscription.request"}`)})
	if f := recvN(t, c, 1)[0]; f.Event != EventHandshake {
		t.Fatalf("first frame %+v, want the handshake", f)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 20 {
		events <- fmt.Sprintf(`{"before":%d}`, i)
		if f := recvN(t, c, 1)[0]; string(f.Data) != fmt.Sprintf(`{"before":%d}`, i) {
			t.Fatalf("round %d: frame %q before the renegotiation", i, f.Data)
		}
		if err := c.Send(context.Background(), []byte(`{"type":"subscription.renegotiate","subscription_id":"sub_1","capabilities":{}}`)); err != nil {
			t.Fatalf("round %d: Send: %v", i, err)
		}
		// Already queued: Recv returns it even with its context done.
		f, err := c.Recv(done)
		if err != nil || f.Event != EventHandshake {
			t.Fatalf("round %d: right after Send, Recv gave %+v, %v; want the answer, queued", i, f, err)
		}
		events <- fmt.Sprintf(`{"after":%d}`, i)
		if f := recvN(t, c, 1)[0]; string(f.Data) != fmt.Sprintf(`{"after":%d}`, i) {
			t.Fatalf("round %d: frame %q after the answer", i, f.Data)
		}
	}
	// An Answerer's caller takes the answer itself: it is not queued too.
	answer, err := c.(Answerer).SendAnswered(context.Background(), []byte(`{"type":"subscription.renegotiate","subscription_id":"sub_1","capabilities":{}}`))
	if err != nil || !strings.Contains(string(answer), "subscription.accepted") {
		t.Fatalf("SendAnswered: %q, %v", answer, err)
	}
	if f, err := c.Recv(done); err == nil {
		t.Errorf("the answer taken by SendAnswered was queued as well: %+v", f)
	}
}
