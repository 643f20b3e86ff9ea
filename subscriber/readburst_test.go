package subscriber

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// burstEvent is a valid event, the i-th of the stream: session i%sessions,
// its sequence number i/sessions.
func burstEvent(i, sessions int) []byte {
	return fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.output.streaming","chunk":"Line %d. ","position":0,"complete":false,"output_id":"out_%d","content_type":"text/plain","event_id":"evt_%012x","session_id":"sess_%08x","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"},"urgency":"background"}`,
		i, i, i, i%sessions, i/sessions)
}

// burstFrames is n frames of a stream: mostly events, and among them, at
// positions that fall in both halves of bursts, a frame that is no JSON, a
// message that is no event, an event that breaks the schema and a note of
// the connection.
func burstFrames(n int) []transport.Frame {
	frames := make([]transport.Frame, n)
	for i := range frames {
		f := transport.Frame{Data: burstEvent(i, 64), At: time.Unix(int64(i), 0)}
		switch i % 37 {
		case 5:
			f.Data = []byte(`{"type": not json`)
		case 11:
			f.Data = []byte(`{"type":"subscription.close","subscription_id":"sub_1"}`)
		case 23:
			f.Data = []byte(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.output.streaming","event_id":"evt_x` + fmt.Sprint(i) + `"}`)
		case 31:
			f = transport.Frame{Note: &transport.Note{Problem: true, Text: fmt.Sprint("note ", i)}, At: f.At}
		}
		frames[i] = f
	}
	return frames
}

// waitingConn hands its frames over one by one with Recv, and with TryRecv
// as many as sizes says for each burst in turn (cycling), then ends.
type waitingConn struct {
	frames []transport.Frame
	sizes  []int
	next   int // the next frame
	left   int // how many more TryRecv hands over in this burst
	burst  int // bursts begun
}

func (c *waitingConn) Recv(context.Context) (transport.Frame, error) {
	if c.next == len(c.frames) {
		return transport.Frame{}, io.EOF
	}
	c.left = c.sizes[c.burst%len(c.sizes)] - 1
	c.burst++
	c.next++
	return c.frames[c.next-1], nil
}

func (c *waitingConn) TryRecv() (transport.Frame, bool) {
	if c.left <= 0 || c.next == len(c.frames) {
		return transport.Frame{}, false
	}
	c.left--
	c.next++
	return c.frames[c.next-1], true
}

func (c *waitingConn) Send(context.Context, []byte) error { return nil }
func (c *waitingConn) Close() error                       { return nil }

// sameDecoding says how got differs from want, or "".
func sameDecoding(got, want decoded) string {
	switch {
	case !got.frame.At.Equal(want.frame.At):
		return fmt.Sprintf("the frame received at %v, want the one at %v", got.frame.At.Unix(), want.frame.At.Unix())
	case (got.note == nil) != (want.note == nil) || got.note != nil && *got.note != *want.note:
		return fmt.Sprintf("note %v, want %v", got.note, want.note)
	case got.message != want.message || got.answer != want.answer:
		return fmt.Sprintf("message %q, want %q", got.message, want.message)
	case fmt.Sprint(got.err) != fmt.Sprint(want.err):
		return fmt.Sprintf("error %v, want %v", got.err, want.err)
	case (got.ev == nil) != (want.ev == nil) || got.ev != nil && got.ev.EventID != want.ev.EventID:
		return fmt.Sprintf("event %v, want %v", got.ev, want.ev)
	}
	return ""
}

// A burst decoded on two goroutines is put in the order received, each
// frame decoded as one decoder alone decodes it, whatever the bursts'
// sizes: below minSplit, at it, odd, full. The helper decodes half of
// every large burst (split); under -race, its slots are read only once it
// is done with them.
func TestBurstDecodedInOrder(t *testing.T) {
	t.Parallel()
	frames := burstFrames(20_000)
	var alone protocol.Decoder
	want := make([]decoded, len(frames))
	valid := 0
	for i, f := range frames {
		want[i] = decodeFrame(&alone, f)
		if want[i].ev != nil && want[i].err == nil {
			valid++
		}
	}
	if valid < len(frames)*8/10 {
		t.Fatalf("%d valid events of %d frames", valid, len(frames))
	}
	for _, sizes := range [][]int{{maxBurst}, {1, minSplit - 1, minSplit, minSplit + 1, 33, maxBurst - 1, maxBurst, 2}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			conn := &waitingConn{frames: frames, sizes: sizes}
			r := burstReader{}
			defer r.stop()
			var got []decoded
			put := func(d decoded) bool { got = append(got, d); return true }
			for {
				f, err := conn.Recv(context.Background())
				if err != nil {
					break
				}
				if !r.decodeEach(r.take(conn, f), put) {
					t.Fatal("decodeEach stopped though put never did")
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d frames put, want %d", len(got), len(want))
			}
			for i := range got {
				if why := sameDecoding(got[i], want[i]); why != "" {
					t.Fatalf("frame %d: %s", i, why)
				}
			}
			if r.split < len(frames)/4 {
				t.Fatalf("the helper decoded %d frames of %d in bursts of %v", r.split, len(frames), sizes)
			}
		})
	}
}

// A put that stops (the client is ending) stops the burst at once; the
// helper finishes the half it holds before the reader lets the burst go
// (-race), and the frames put before are the burst's first ones.
func TestBurstStopsWhenPutDoes(t *testing.T) {
	t.Parallel()
	frames := burstFrames(maxBurst)
	for _, stopAt := range []int{0, 1, maxBurst/2 - 1, maxBurst / 2, maxBurst - 1} {
		conn := &waitingConn{frames: frames, sizes: []int{maxBurst}}
		r := burstReader{}
		var got []decoded
		put := func(d decoded) bool {
			if len(got) == stopAt {
				return false
			}
			got = append(got, d)
			return true
		}
		f, _ := conn.Recv(context.Background())
		if r.decodeEach(r.take(conn, f), put) {
			t.Fatalf("stopped at %d: decodeEach went on", stopAt)
		}
		r.stop()
		for i, d := range got {
			if !d.frame.At.Equal(frames[i].At) {
				t.Fatalf("stopped at %d: frame %d put out of order", stopAt, i)
			}
		}
	}
}

// A client reading bursts delivers the events in the order received: the
// stream's sessions take turns, so an event put out of its place shows
// among the others (the engine reorders only within a session).
func TestClientKeepsOrderOverBursts(t *testing.T) {
	t.Parallel()
	const n, sessions = 10_000, 64
	frames := make([]transport.Frame, n)
	for i := range frames {
		frames[i] = transport.Frame{Data: burstEvent(i, sessions), At: time.Now()}
	}
	c := New(context.Background(), &waitingConn{frames: frames, sizes: []int{maxBurst, 17, maxBurst, 3}}, "", Config{})
	next := 0
	for {
		batch, err := c.NextBatch(context.Background(), 0)
		if err != nil {
			break
		}
		for _, u := range batch {
			if u.Kind != KindDelivery || u.Delivery.Event == nil {
				continue
			}
			if want := fmt.Sprintf("evt_%012x", next); u.Delivery.Event.EventID != want {
				t.Fatalf("delivered %s, want %s", u.Delivery.Event.EventID, want)
			}
			next++
		}
	}
	if next != n {
		t.Fatalf("%d events delivered of %d", next, n)
	}
}
