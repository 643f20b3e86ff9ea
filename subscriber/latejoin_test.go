package subscriber_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// A late join to a producer that replays its history (the deployed layout,
// no handshake): what is delivered comes in sequence order, the same every
// run, however the history's frames are split into reads. (That a prompt
// the history settles is never offered first is held only within one
// burst: TestBurstHoldsSettledPrompts, cmd/aaep-listen.)
func TestLateJoinReplayedHistory(t *testing.T) {
	f, err := os.Open("../capture/testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := capture.ReadDocuments(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Replay: &producer.Replay{Records: recs, Linger: time.Hour}})
	t.Cleanup(func() { p.Close() })
	endpoint := httpServe(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := subscriber.Start(ctx, endpoint, subscriber.Config{
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}}})
	defer c.Close()
	var lines []string
	last := map[string]int64{}
	for ended := 0; ended < 2; {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("%v after:\n%s", err, strings.Join(lines, "\n"))
		}
		if u.Kind != subscriber.KindDelivery || u.Delivery.Event == nil {
			continue
		}
		d := u.Delivery
		ev := d.Event
		lines = append(lines, fmt.Sprintf("%s %d %s %s", ev.SessionID, ev.Seq, ev.Type, d.Kind))
		if d.Kind == session.KindEvent || d.Kind == session.KindPromptStale {
			if s, ok := last[ev.SessionID]; ok && ev.Seq < s {
				t.Errorf("%s: number %d after %d", ev.SessionID, ev.Seq, s)
			}
			last[ev.SessionID] = ev.Seq
		}
		if strings.HasSuffix(ev.Type, "session.completed") {
			ended++
		}
	}
	if t.Failed() {
		t.Log(strings.Join(lines, "\n"))
	}
}
