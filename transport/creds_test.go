package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// foreign is a loopback server on another port: it serves an event stream
// and takes POSTs, and records every credential it is sent.
type foreign struct {
	mu   sync.Mutex
	seen []string // "METHOD path: header=value" for each credential received
	srv  *httptest.Server
}

func newForeign(t *testing.T) *foreign {
	f := &foreign{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		for _, k := range []string{"Authorization", "X-Secret"} {
			if v := r.Header.Get(k); v != "" {
				f.seen = append(f.seen, r.Method+" "+r.URL.Path+": "+k+"="+v)
			}
		}
		f.mu.Unlock()
		if r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		streamHeaders(w)
		write(w, "data: {\"n\":0}\n\n")
		<-r.Context().Done()
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *foreign) credentials() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// TestCredentialsOnlyToNamedOrigin runs a producer (the origin the user
// named) that sends the client to a server on another port by a
// subscription Location, a redirect of the stream, and a redirect of a
// POSTed reply. The other port never sees the bearer token or a --header.
func TestCredentialsOnlyToNamedOrigin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout Layout
		origin func(other string) http.HandlerFunc
	}{
		{"subscription Location on another port", LayoutSpec, func(other string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case protocol.PathSubscriptions:
					w.Header().Set("Location", other+"/aaep/v1/events?subscription_id=sub_1")
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusCreated)
					_, _ = io.WriteString(w, `{"type":"subscription.accepted","subscription_id":"sub_1"}`)
				case protocol.PathReplies:
					http.Redirect(w, r, other+protocol.PathReplies, http.StatusTemporaryRedirect)
				}
			}
		}},
		{"redirects to another port", LayoutLegacy, func(other string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := newForeign(t)
			origin := httptest.NewServer(tc.origin(other.srv.URL))
			t.Cleanup(origin.Close)
			var rec recorder
			c := dial(t, origin.URL, rec.opts(SSEOptions{
				Layout: tc.layout, Token: "tok", Header: http.Header{"X-Secret": {"hush"}},
				SubscriptionRequest: []byte(`{"type":"subscription.request"}`),
			}))
			frames := recvN(t, c, 1)
			if tc.layout == LayoutSpec {
				frames = recvN(t, c, 1) // the handshake came first
			}
			if string(frames[0].Data) != `{"n":0}` {
				t.Fatalf("frame %+v", frames[0])
			}
			if err := c.Send(context.Background(), []byte(`{"type":"confirmation.reply"}`)); err != nil {
				t.Fatalf("send: %v", err)
			}
			if got := other.credentials(); len(got) != 0 {
				t.Errorf("the server on another port received credentials: %q", got)
			}
		})
	}
}
