package subscriber_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// Events come out in the order their frames were received, every one
// once, whatever the size of the batches the reader takes and however the
// frames fall into bursts; clients may share one set of compiled schemas.
// A reader that appends to a batch it took, or keeps it, disturbs neither
// the batch nor the updates still queued.
func TestEventsInFrameOrder(t *testing.T) {
	const n = 3*4096 + 17 // more than may wait, so the reader is waited for
	evs := corpus(n, 64, 0)
	schemas, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, max := range []int{0, 1, 7, 1024} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := subscriber.New(ctx, &framesConn{frames: evs}, "", subscriber.Config{Schemas: schemas})
			defer c.Close()
			var kept [][]subscriber.Update
			var ids []string
			for {
				b, err := c.NextBatch(ctx, max)
				if err != nil {
					break
				}
				for _, u := range b {
					if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
						ids = append(ids, u.Delivery.Event.EventID)
					}
				}
				_ = append(b, subscriber.Update{Kind: subscriber.KindStatus, Text: "appended by the reader"})
				kept = append(kept, b)
			}
			if len(ids) != n {
				t.Errorf("max %d: %d events of %d came out", max, len(ids), n)
				return
			}
			for i, id := range ids {
				if want := fmt.Sprintf("evt_0000%012x", i); id != want {
					t.Errorf("max %d: event %d is %s, want %s", max, i, id, want)
					return
				}
			}
			i := 0
			for _, b := range kept {
				for _, u := range b {
					if u.Text == "appended by the reader" {
						t.Errorf("max %d: a reader's append reached a later batch", max)
						return
					}
					if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
						if want := fmt.Sprintf("evt_0000%012x", i); u.Delivery.Event.EventID != want {
							t.Errorf("max %d: a kept batch changed: event %d is %s, want %s", max, i, u.Delivery.Event.EventID, want)
							return
						}
						i++
					}
				}
			}
		}()
	}
	wg.Wait()
}
