package producer_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// confirmProducer is the real producer playing the "confirm" scenario
// without pauses, ending its streams once it is over.
func confirmProducer(t *testing.T) *producer.Producer {
	t.Helper()
	all, err := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	if err != nil {
		t.Fatal(err)
	}
	confirm, err := producer.SelectScenarios(all, []string{"confirm"})
	if err != nil {
		t.Fatal(err)
	}
	return producer.New(producer.Options{Scenarios: confirm, EndWhenDone: true})
}

// listen is a listener for binding b: a loopback port, or a Unix socket.
func listen(t *testing.T, b producer.Binding) net.Listener {
	t.Helper()
	if b == producer.BindingUnix {
		// A short path: a socket's path is limited to about 100 bytes.
		dir, err := os.MkdirTemp("", "srv")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		ln, err := producer.ListenUnix(filepath.Join(dir, "p.sock"))
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// dial subscribes to url with a real client that answers confirmations.
func dial(t *testing.T, url string) *subscriber.Client {
	t.Helper()
	c, err := subscriber.Dial(context.Background(), url, subscriber.Config{
		Identity:  session.Identity{ID: "test", Name: "test", Version: "1"},
		Terms:     session.Terms{CanConfirm: true},
		Transport: transport.Options{GRPCBinding: grpcbind.Binding{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hearRun subscribes to url with a real client, answers the confirmation,
// and hears the run to its end; it reports whether the reply was taken and
// the session completed.
func hearRun(t *testing.T, url string) (replied, completed bool) {
	t.Helper()
	ctx := context.Background()
	c := dial(t, url)
	for {
		u, err := c.Next(ctx)
		if errors.Is(err, io.EOF) {
			return replied, completed
		}
		if err != nil {
			t.Fatal(err)
		}
		if u.Kind == subscriber.KindReply {
			replied = u.Reply.Err == nil
		}
		if u.Kind != subscriber.KindDelivery || u.Delivery.Kind != session.KindEvent {
			continue
		}
		if p := u.Delivery.Prompt; p != nil && p.State == session.PromptPending {
			err := c.Confirm(ctx, p.Number, protocol.DecisionAccept)
			switch {
			case errors.Is(err, subscriber.ErrClosed):
				// The client ended before the answer: a subscriber that
				// came as the last run finished hears it again and is
				// then told it is over. Nothing was answered; its End
				// follows, and the caller comes again.
			case err != nil:
				t.Fatal(err)
			}
		}
		if u.Delivery.Event.Type == protocol.TypeSessionCompleted {
			completed = true
			c.Close()
		}
	}
}

// Runs serve any number of runs (issue 24 item 19): a subscriber that
// comes after the last one has heard its run to the end hears a fresh run
// from the start, prompt included, over each binding Runs serve. Before
// Runs, a target served one run, and the second was told nothing more.
func TestRunsServeOneRunAfterAnother(t *testing.T) {
	t.Parallel()
	for _, b := range []producer.Binding{producer.BindingHTTP, producer.BindingWebSocket, producer.BindingGRPC, producer.BindingUnix} {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			runs := producer.NewRuns(func() *producer.Producer { return confirmProducer(t) }, t.Logf)
			s, err := producer.ServeRuns(listen(t, b), runs, b)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			for run := 1; run <= 3; run++ {
				// The last run keeps its group until the server has seen
				// the last stream leave, which may come just after the
				// client closed it: a subscriber in that moment hears
				// that run again, from its history, and its end (with no
				// answer of its own), and comes again, as any would.
				replied, completed := hearRun(t, s.URL())
				for try := 0; !(replied && completed) && run > 1 && try < 50; try++ {
					replied, completed = hearRun(t, s.URL())
				}
				if !replied || !completed {
					t.Fatalf("run %d: replied %v, session completed %v", run, replied, completed)
				}
			}
		})
	}
}

// Serve serves the producer over each binding: a real subscriber dials the
// Server's URL, hears the scenario, answers its prompt, and hears the end;
// Stop then returns once the server has ended, and says no failure.
func TestServeEachBinding(t *testing.T) {
	for _, b := range []producer.Binding{producer.BindingHTTP, producer.BindingWebSocket, producer.BindingGRPC, producer.BindingUnix} {
		t.Run(string(b), func(t *testing.T) {
			s, err := producer.Serve(listen(t, b), confirmProducer(t), b)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			if transport.BindingOf(s.URL()) != b {
				t.Errorf("URL %q does not name the binding %s", s.URL(), b)
			}
			replied, completed := hearRun(t, s.URL())
			if !replied || !completed {
				t.Errorf("replied %v, session completed %v", replied, completed)
			}
			s.Stop()
			s.Stop() // again: waits for the same end
			select {
			case <-s.Done():
			default:
				t.Fatal("Stop returned before the server ended")
			}
			if err := s.Err(); err != nil {
				t.Errorf("a stopped server says it failed: %v", err)
			}
		})
	}
}

// Stop returns while a subscriber still holds a stream open: the producer
// is closed first, which ends the stream, so stopping does not wait on it.
func TestServeStopEndsOpenStreams(t *testing.T) {
	for _, b := range []producer.Binding{producer.BindingHTTP, producer.BindingGRPC, producer.BindingUnix} {
		t.Run(string(b), func(t *testing.T) {
			// The prompt is left waiting, so the stream stays open.
			s, err := producer.Serve(listen(t, b), confirmProducer(t), b)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			c := dial(t, s.URL())
			defer c.Close()
			for { // until the prompt waits
				u, err := c.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil {
					break
				}
			}
			s.Stop() // returns: the test would hang otherwise
			if err := s.Err(); err != nil {
				t.Errorf("a stopped server says it failed: %v", err)
			}
		})
	}
}

// A server that fails (its listener closed under it) says so: Done is
// closed and Err names the failure.
func TestServeFailureIsSaid(t *testing.T) {
	ln := listen(t, producer.BindingHTTP)
	s := producer.ServeHandler(ln, http.NotFoundHandler())
	ln.Close()
	<-s.Done()
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "serving http://") {
		t.Fatalf("Err after a failure: %v", err)
	}
	s.Stop() // after a failure: returns at once
}

// Serve refuses a binding it does not know, in words naming those it does.
func TestServeUnknownBinding(t *testing.T) {
	ln := listen(t, producer.BindingHTTP)
	defer ln.Close()
	_, err := producer.Serve(ln, producer.New(producer.Options{}), "carrier-pigeon")
	if err == nil || !strings.Contains(err.Error(), "sse, websocket, grpc and unix") {
		t.Fatalf("error %v", err)
	}
}

// A hang-up on a Unix socket cannot say why (appendix B.4), so a run that
// ends its streams says it in a subscription.close first: the subscriber
// hears that the producer ended the subscription, and does not take the
// hang-up for a loss and dial again (before, it did, and with Runs the
// redial started a run of its own).
func TestUnixRunEndIsSaid(t *testing.T) {
	t.Parallel()
	s, err := producer.Serve(listen(t, producer.BindingUnix), confirmProducer(t), producer.BindingUnix)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dial(t, s.URL())
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("no end: %v", err)
		}
		if p := u.Delivery.Prompt; u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent && p != nil && p.State == session.PromptPending {
			if err := c.Confirm(ctx, p.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
		}
		if u.Kind == subscriber.KindStatus && strings.Contains(strings.ToLower(u.Text), "reconnect") {
			t.Errorf("the subscriber reconnects: %s", u.Text)
		}
		if u.Kind == subscriber.KindEnd {
			if !strings.Contains(u.Text, "The producer ended the subscription (reason: producer_finished).") {
				t.Errorf("the end says %q", u.Text)
			}
			return
		}
	}
}
