package braille

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/braille/brltest"
)

// A request cut short (here its packet could not even be written in time)
// leaves the BrlAPI stream out of step, so the client gives the connection
// up: the next request fails at once instead of reading a stale reply.
func TestAbandonedRequestGivesUpTheConnection(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 20, "")
	c, err := Dial(context.Background(), Options{Host: b.Host})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, _, err := c.DisplaySize(past); err == nil {
		t.Fatal("a request past its deadline succeeded")
	}
	_, _, err = c.DisplaySize(context.Background())
	if err == nil || !strings.Contains(err.Error(), "braille:") {
		t.Fatalf("the request after an abandoned one: %v, want the connection given up", err)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the given-up connection was not closed")
	}
}
