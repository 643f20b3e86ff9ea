package subscriber_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// The End's error is printed by programs (log.Fatal(u.Err)), so its Error
// is one sanitized line, as transport.HTTPError's is: a hostile reason code
// can neither drive the terminal nor forge a line of its own.
func TestEndErrorIsOneSanitizedLine(t *testing.T) {
	const hostile = "denied\x1b]0;owned\x07\r\nConnected to your bank.\u202e"
	end, _ := endOf(t, dialRefusing(t, producer.Refusal{Code: hostile, Message: hostile, RetryAfter: -1}))
	var rej *subscriber.RejectedError
	if !errors.As(end.Err, &rej) || rej.Code != hostile {
		t.Fatalf("End error %#v, want the refusal with its code as sent", end.Err)
	}
	if s := end.Err.Error(); strings.ContainsAny(s, "\x1b\x07\r\n\u202e") {
		t.Errorf("End error %q: control characters reach whoever prints it", s)
	}
}

// After the End, Next returns io.EOF at once, however the reader's calls
// fall against the client's queuing of the End: a reader that took the End
// and asks again is never left waiting for its context (the program of
// docs/library.md once waited 30 seconds, one run in twenty, for a
// context.Background() it would have waited forever).
func TestNextAfterEndIsEOF(t *testing.T) {
	const runs = 500
	for i := range runs {
		conn := transport.NewNDJSONConn(strings.NewReader(""), transport.FileOptions{})
		c := subscriber.New(context.Background(), conn, "", subscriber.Config{})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var err error
		ends := 0
		for err == nil {
			var u subscriber.Update
			if u, err = c.Next(ctx); err == nil && u.Kind == subscriber.KindEnd {
				ends++
			}
		}
		cancel()
		c.Close()
		if !errors.Is(err, io.EOF) || ends != 1 {
			t.Fatalf("run %d: Next ended with %v after %d End updates, want io.EOF after one", i, err, ends)
		}
	}
}

// Every status kind the package documents is one a program can wait for:
// the lines of a retry after a refusal come as StatusRetry, between the
// StatusRejected that explains the refusal and the StatusSubscribed of the
// retry that is accepted.
func TestRetryLinesAreStatusRetry(t *testing.T) {
	end, all := endOf(t, dialRefusing(t, producer.Refusal{Code: "rate_limit", RetryAfter: 0, Times: 1})) // retry at once
	if end.Err != nil {
		t.Fatalf("End %q: %v", end.Text, end.Err)
	}
	var kinds []subscriber.StatusKind
	var retries []string
	for _, u := range all {
		if u.Kind != subscriber.KindStatus {
			continue
		}
		switch u.Status {
		case subscriber.StatusRejected, subscriber.StatusSubscribed:
			kinds = append(kinds, u.Status)
		case subscriber.StatusRetry:
			kinds = append(kinds, u.Status)
			retries = append(retries, u.Text)
		}
		if strings.HasPrefix(u.Text, "Retrying") && u.Status != subscriber.StatusRetry {
			t.Errorf("%q came as %v, want retry", u.Text, u.Status)
		}
	}
	want := []subscriber.StatusKind{subscriber.StatusRejected, subscriber.StatusRetry, subscriber.StatusSubscribed}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("status kinds %v (retry lines %q), want %v", kinds, retries, want)
	}
}

// dialRefusing subscribes, on the spec's HTTP layout, to a producer that
// refuses as r says; the client is closed when the test ends.
func dialRefusing(t *testing.T, r producer.Refusal) *subscriber.Client {
	t.Helper()
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true, Refuse: &r})
	t.Cleanup(func() { p.Close() })
	c, err := subscriber.Dial(context.Background(), httpServe(t, p), subscriber.Config{Identity: session.Identity{ID: "test"},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
