package subscriber_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// An Unbounded manifest check waits for the producer's answer however late
// it comes: here a fetch with a deadline is answered only once that
// deadline has passed (as by a producer slower than any bound of the
// client's), and one without is answered once the producer has played its
// whole run and sent every event. The check's line is what an answer at
// once gives ("not signed", quiet), in its place after the subscription
// and before the first event, and every event follows, in order. A check
// with a bound (2 s without Unbounded) would say the manifest could not
// be fetched.
func TestUnboundedManifestCheckWaitsForALateAnswer(t *testing.T) {
	t.Parallel()
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == protocol.PathManifest {
			select {
			case <-p.Done(): // every event played, and sent to the stream
			case <-r.Context().Done(): // the client gave up waiting
				return
			}
		}
		p.ServeHTTP(w, r)
	}))
	late := &http.Client{Transport: afterDeadline{}}
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = p.Close() }) // first: it ends the streams srv.Close waits for
	c, err := subscriber.Dial(t.Context(), srv.URL, subscriber.Config{
		Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
		Terms:     session.Terms{Verbosity: "normal"},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}},
		Manifest:  subscriber.ManifestConfig{Unbounded: true, HTTPClient: late},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &stream{t: t, c: c, ctx: t.Context()}
	var manifest *subscriber.Update
	events := 0
	for u := s.next(); u.Kind != subscriber.KindEnd; u = s.next() {
		switch {
		case u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusManifest:
			if manifest != nil || events > 0 {
				t.Fatalf("the manifest's line %q comes again or after an event:\n%s", u.Text, strings.Join(s.log, "\n"))
			}
			m := u
			manifest = &m
		case u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent:
			events++
		}
	}
	switch {
	case manifest == nil:
		t.Fatalf("no line about the manifest:\n%s", strings.Join(s.log, "\n"))
	case manifest.Text != "The producer's manifest is not signed." || !manifest.Quiet:
		t.Errorf("the manifest's line is %q (quiet %v), want the quiet line of an unsigned manifest", manifest.Text, manifest.Quiet)
	}
	if want := len(loadScenarios(t, "happy")[0].Steps); events != want {
		t.Errorf("%d events told, want the scenario's %d:\n%s", events, want, strings.Join(s.log, "\n"))
	}
}

// afterDeadline is a transport whose requests with a deadline fail once it
// has passed, unanswered; the others go as usual.
type afterDeadline struct{}

func (afterDeadline) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, ok := req.Context().Deadline(); ok {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	return http.DefaultTransport.RoundTrip(req)
}
