package subscriber_test

import (
	"context"
	"errors"
	"strings"
	"testing"

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
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true,
		Refuse: &producer.Refusal{Code: hostile, Message: hostile, RetryAfter: -1}})
	t.Cleanup(func() { p.Close() })
	c, err := subscriber.Dial(context.Background(), httpServe(t, p), subscriber.Config{Identity: session.Identity{ID: "test"},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	end, _ := endOf(t, c)
	var rej *subscriber.RejectedError
	if !errors.As(end.Err, &rej) || rej.Code != hostile {
		t.Fatalf("End error %#v, want the refusal with its code as sent", end.Err)
	}
	if s := end.Err.Error(); strings.ContainsAny(s, "\x1b\x07\r\n\u202e") {
		t.Errorf("End error %q: control characters reach whoever prints it", s)
	}
}
