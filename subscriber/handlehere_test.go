package subscriber

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// stepConn gives one frame a Recv, each when the test sends it, then
// io.EOF once frames is closed.
type stepConn struct{ scriptConn }

func newStepConn() stepConn { return stepConn{scriptConn{frames: make(chan transport.Frame)}} }

// RecvBatch gives the next frame as a burst of one: a connection that
// gives all it has at once (transport.BatchReceiver), with one.
func (c stepConn) RecvBatch(ctx context.Context, dst []transport.Frame, _ int) ([]transport.Frame, error) {
	f, err := c.Recv(ctx)
	if err != nil {
		return dst, err
	}
	return append(dst, f), nil
}

// seqFrame is event i of session sess_1, numbered seq.
func seqFrame(i, seq int, typ, extra string) transport.Frame {
	return transport.Frame{Data: fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",`+
		`"type":"%s",%s"summary_normal":"Step %d.",`+
		`"event_id":"evt_%04d","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-01-01T00:00:%02dZ",`+
		`"producer":{"agent_id":"a","agent_name":"A"}}`, typ, extra, i, i, seq, i%60), At: time.Now()}
}

const stateChanged = `"from_state":"idle","to_state":"thinking",`

// started is a client over a stepConn, its session's first event
// (evt_0000, number 0) told.
func started(t *testing.T, cfg Config) (stepConn, *Client) {
	t.Helper()
	conn := newStepConn()
	c := New(context.Background(), conn, "", cfg)
	conn.frames <- seqFrame(0, 0, protocol.TypeSessionStarted, "")
	if u := nextDelivery(t, c); u.Kind != KindDelivery || u.Delivery.Event == nil || u.Delivery.Event.EventID != "evt_0000" {
		c.Close()
		t.Fatalf("first update %+v, want evt_0000", u)
	}
	return conn, c
}

// hereCount is how many bursts c's reading goroutine handled itself.
func hereCount(t *testing.T, c *Client) int {
	t.Helper()
	var n int
	if err := c.do(context.Background(), func() { n = c.here }); err != nil {
		t.Fatal(err)
	}
	return n
}

// nextDelivery waits for c's next update that is not a status line.
func nextDelivery(t *testing.T, c *Client) Update {
	t.Helper()
	for {
		u, err := c.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if u.Kind != KindStatus {
			return u
		}
	}
}

// An agent sending an event at a time: each is handled by the client's
// reading goroutine itself, the owner goroutine not woken for it, and
// told in the order sent; a note of the connection, a prompt the gate may
// answer and a message of the handshake go to the owner, in their place.
func TestSmallBurstsHandledByTheReader(t *testing.T) {
	t.Parallel()
	conn := newStepConn()
	c := New(context.Background(), conn, "", Config{})
	defer c.Close()
	for i := 0; i <= 5; i++ {
		typ, extra := protocol.TypeStateChanged, stateChanged
		if i == 0 {
			typ, extra = protocol.TypeSessionStarted, ""
		}
		conn.frames <- seqFrame(i, i, typ, extra)
		u := nextDelivery(t, c)
		if id := fmt.Sprintf("evt_%04d", i); u.Kind != KindDelivery || u.Delivery.Kind != session.KindEvent || u.Delivery.Event.EventID != id {
			t.Fatalf("update %d is %+v, want the delivery of %s", i, u, id)
		}
	}
	if n := hereCount(t, c); n < 5 {
		// The first may find the owner busy still; the others find it
		// waiting, as nothing else is asked of it.
		t.Fatalf("%d of 6 single events handled by the reading goroutine, want at least 5", n)
	}
	if batching(scriptConn{}) || !batching(conn) {
		t.Fatal("a connection giving a frame a call taken for one giving bursts, or the reverse")
	}
	before := hereCount(t, c)
	conn.frames <- problemFrame("a problem of the connection")
	conn.frames <- seqFrame(6, 6, protocol.TypeAwaitingConfirmation, `"action":"Pay.","consequence":"Paid.","risk_level":"low","irreversible":false,"reply_token":"rpl_1","timeout_seconds":300,"default_decision":"reject","urgency":"critical",`)
	conn.frames <- seqFrame(7, 7, protocol.TypeStateChanged, stateChanged)
	close(conn.frames)
	var got []string
	for {
		u, err := c.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch u.Kind {
		case KindDelivery:
			if ev := u.Delivery.Event; ev != nil && !slices.Contains(got, ev.EventID) {
				got = append(got, ev.EventID) // its first update: offered, or not offered
			}
		case KindDiagnostic:
			got = append(got, u.Diagnostic.Message)
		}
	}
	if fmt.Sprint(got) != "[a problem of the connection evt_0006 evt_0007]" {
		t.Fatalf("after the single events: %q, want the problem, evt_0006 and evt_0007", got)
	}
	<-c.Done() // its run has ended: c.here is read after its last change
	if n := c.here - before; n > 1 {
		t.Fatalf("%d bursts handled by the reading goroutine after the note and the prompt, want at most 1 (the last event)", n)
	}
}

// An event the reading goroutine handled and the engine holds (an earlier
// one is missing) is released when its wait runs out: the owner goroutine,
// waiting with no deadline, is woken to set its timer for it.
func TestHeldByTheReaderIsReleased(t *testing.T) {
	t.Parallel()
	conn, c := started(t, Config{ReorderWait: time.Millisecond})
	defer c.Close()
	before := hereCount(t, c)
	conn.frames <- seqFrame(2, 2, protocol.TypeStateChanged, stateChanged) // number 1 never comes
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)  // a bound, not a pace: it ends a hang
	defer cancel()
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("evt_0002 never released: %v", err)
		}
		if u.Kind == KindDelivery && u.Delivery.Event != nil && u.Delivery.Event.EventID == "evt_0002" {
			break
		}
	}
	if n := hereCount(t, c) - before; n != 1 {
		t.Fatalf("%d bursts handled by the reading goroutine, want 1 (the event held)", n)
	}
}

// An event that may release events held (a prompt could be among them,
// which the gate may answer by sending a reply) goes to the owner
// goroutine, as replies are sent from there; the order is kept.
func TestReleasingHeldGoesToTheOwner(t *testing.T) {
	t.Parallel()
	conn, c := started(t, Config{ReorderWait: time.Hour})
	defer c.Close()
	// Held, number 1 missing. (A prompt is critical, never held, but it
	// may be released after one held: the reading goroutine does not
	// tell which events a handling releases.)
	conn.frames <- seqFrame(2, 2, protocol.TypeStateChanged, stateChanged)
	for holding := false; !holding; { // the reading goroutine may still be handling it
		if err := c.do(context.Background(), func() { holding = c.eng.Holding() }); err != nil {
			t.Fatal(err)
		}
	}
	before := hereCount(t, c)
	conn.frames <- seqFrame(1, 1, protocol.TypeStateChanged, stateChanged)
	var got []string
	for len(got) < 2 {
		u := nextDelivery(t, c)
		if ev := u.Delivery.Event; u.Kind == KindDelivery && ev != nil && !slices.Contains(got, ev.EventID) {
			got = append(got, ev.EventID)
		}
	}
	if fmt.Sprint(got) != "[evt_0001 evt_0002]" {
		t.Fatalf("delivered %v, want evt_0001 then the event it released", got)
	}
	if n := hereCount(t, c) - before; n != 0 {
		t.Fatalf("the event releasing one held was handled by the reading goroutine (%d bursts)", n)
	}
}

// burstsConn gives its frames in the bursts set, each as one RecvBatch
// (transport.BatchReceiver), then io.EOF.
type burstsConn struct {
	bursts [][]transport.Frame
}

func (c *burstsConn) Recv(ctx context.Context) (transport.Frame, error) {
	b, err := c.RecvBatch(ctx, nil, 1)
	if err != nil {
		return transport.Frame{}, err
	}
	return b[0], nil
}

func (c *burstsConn) RecvBatch(_ context.Context, dst []transport.Frame, _ int) ([]transport.Frame, error) {
	if len(c.bursts) == 0 {
		return dst, io.EOF
	}
	dst = append(dst, c.bursts[0]...)
	c.bursts = c.bursts[1:]
	return dst, nil
}

func (*burstsConn) Send(context.Context, []byte) error { return nil }
func (*burstsConn) Close() error                       { return nil }

// fuzzFrames makes frames of ops, one a byte: events of two sessions
// numbered out of order, some critical, duplicates, prompts, problems of
// the connection, frames that are no event; and cuts them in bursts of
// sizes.
func fuzzFrames(ops, sizes []byte) (all []transport.Frame, bursts [][]transport.Frame) {
	for i, op := range ops {
		seq, sess := int(op>>3)%6, 1+int(op>>6)%2
		var f transport.Frame
		switch op % 8 {
		case 0, 1, 2:
			f = seqFrame(i, seq, protocol.TypeStateChanged, stateChanged)
		case 3:
			f = seqFrame(i, seq, protocol.TypeStateChanged, stateChanged+`"urgency":"critical",`)
		case 4:
			f = seqFrame(i, seq, protocol.TypeAwaitingConfirmation, `"action":"Pay.","consequence":"Paid.","risk_level":"low","irreversible":false,"reply_token":"rpl_1","timeout_seconds":300,"default_decision":"reject",`)
		case 5:
			f = seqFrame(i-1, seq, protocol.TypeStateChanged, stateChanged) // the last one's event_id again
		case 6:
			f = problemFrame("a problem of the connection")
		default:
			if op&8 != 0 {
				// The producer ends the subscription: nothing after it
				// is handled, wherever the bursts are cut.
				f = transport.Frame{Data: []byte(`{"type":"subscription.close","reason_code":"shutdown"}`), At: time.Now()}
				break
			}
			// Not an event.
			f = transport.Frame{Data: []byte(`{"type":"aaep:agent.state.changed","event_id":`), At: time.Now()}
		}
		f.Data = bytes.Replace(f.Data, []byte(`"sess_1"`), fmt.Appendf(nil, `"sess_%d"`, sess), 1)
		all = append(all, f)
	}
	rest := all
	for i := 0; len(rest) > 0; i++ {
		n := 1
		if len(sizes) > 0 {
			n = 1 + int(sizes[i%len(sizes)])%(2*putGroup)
		}
		n = min(n, len(rest))
		bursts = append(bursts, rest[:n])
		rest = rest[n:]
	}
	return all, bursts
}

// told is every update of c to its End, in words: kind, delivery, event,
// text.
func told(t *testing.T, c *Client) []string {
	t.Helper()
	var out []string
	for {
		u, err := c.Next(context.Background())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprint(u.Kind, u.Status, u.Text, u.Delivery.Kind, u.Delivery.Note, u.Diagnostic.Message)
		if ev := u.Delivery.Event; ev != nil {
			s += " " + ev.EventID
		}
		out = append(out, s)
	}
}

// The updates are the same whether the reading goroutine handles small
// bursts itself or hands every frame to the owner: the same events, lines
// and warnings, in the same order, however the frames come in bursts.
func FuzzSmallBurstsTellAsTheOwner(f *testing.F) {
	f.Add([]byte{0, 8, 16, 24, 32, 40}, []byte{0})
	f.Add([]byte{0, 16, 8, 3, 4, 5, 6, 7, 64, 72, 88, 80}, []byte{0, 2, 9})
	f.Add([]byte{0, 11, 8, 16, 14, 24, 32, 12, 40, 0, 8}, []byte{1, 0, 3})
	f.Add([]byte{0, 8, 15, 16, 24, 7, 32}, []byte{2, 0, 1}) // a close in a burst, more after it
	schemas, err := protocol.NewSchemas()                   // once: compiling them is most of a client's start
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ops, sizes []byte) {
		if len(ops) > 200 {
			return
		}
		all, bursts := fuzzFrames(ops, sizes)
		// Held events come out at the end, not when a clock says.
		cfg := Config{ReorderWait: time.Hour, Schemas: schemas}
		one := New(context.Background(), newScriptConn(all...), "", cfg)
		want := told(t, one)
		c := New(context.Background(), &burstsConn{bursts: bursts}, "", cfg)
		got := told(t, c)
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("update %d: %q, want %q (as the owner tells it)\ngot  %q\nwant %q", i, got[i], want[i], got, want)
				}
			}
			t.Fatalf("%d updates, want %d", len(got), len(want))
		}
	})
}
