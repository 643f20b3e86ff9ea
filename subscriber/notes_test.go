package subscriber

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// scriptConn returns its frames in order, then io.EOF; frames with a Note
// are the connection's notes, in band, as a transport.Conn opened with
// InBand gives them.
type scriptConn struct{ frames chan transport.Frame }

func newScriptConn(frames ...transport.Frame) scriptConn {
	ch := make(chan transport.Frame, len(frames))
	for _, f := range frames {
		ch <- f
	}
	close(ch)
	return scriptConn{frames: ch}
}

func (c scriptConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case f, ok := <-c.frames:
		if !ok {
			return transport.Frame{}, io.EOF
		}
		return f, nil
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
}
func (scriptConn) Send(context.Context, []byte) error { return nil }
func (scriptConn) Close() error                       { return nil }

func statusFrame(s transport.Status, text string) transport.Frame {
	return transport.Frame{Note: &transport.Note{Status: s, Text: text}}
}

func problemFrame(text string) transport.Frame {
	return transport.Frame{Note: &transport.Note{Problem: true, Text: text}}
}

func eventFrame(i int) transport.Frame {
	return transport.Frame{Data: fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",`+
		`"type":"aaep:agent.state.changed","from_state":"idle","to_state":"thinking","summary_normal":"Step %d.",`+
		`"event_id":"evt_%04d","session_id":"sess_1","sequence":%d,"timestamp":"2026-01-01T00:00:%02dZ",`+
		`"producer":{"agent_id":"a","agent_name":"A"}}`, i, i, i, i), At: time.Now()}
}

// reduce names the updates the order is about: D for an event, and the
// status lines by their first letter (C connected, R reconnecting), P for a
// problem, E for the End with its words.
func reduce(t *testing.T, c *Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for {
		u, err := c.Next(ctx)
		if err != nil {
			if err != io.EOF {
				t.Fatalf("%v after %q", err, got)
			}
			return strings.Join(got, "|")
		}
		switch {
		case u.Kind == KindDelivery && u.Delivery.Event != nil:
			got = append(got, "D"+strings.TrimPrefix(u.Delivery.Event.EventID, "evt_"))
		case u.Kind == KindStatus && u.Status == StatusConnected:
			got = append(got, "C")
		case u.Kind == KindStatus && u.Status == StatusReconnecting:
			got = append(got, "R")
		case u.Kind == KindDiagnostic && u.Diagnostic.Code == "transport":
			got = append(got, "P("+u.Diagnostic.Message+")")
		case u.Kind == KindEnd:
			got = append(got, "E("+u.Text+")")
		}
	}
}

// The connection's notes and frames reach the updates by one path, in the
// order the connection gave them: the last events of the lost connection,
// then "reconnecting", then "connected", then the new connection's events,
// then the end, with its words, once — however the reader and the owner
// goroutine happen to be scheduled. Run 200 times, the clients sharing
// one compiled set of schemas as a listener's do: compiled for each client,
// they were nearly all of a run's work (about 100 ms under -race, its
// first event's), and a busy machine took one run past reduce's deadline.
func TestNotesInBandKeepTheirPlace(t *testing.T) {
	schemas, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	want := "C|D0001|D0002|P(too large)|R|C|D0003|D0004|E(End of the input.)"
	for run := range 200 {
		conn := newScriptConn(
			statusFrame(transport.StatusConnected, ""),
			eventFrame(1), eventFrame(2),
			problemFrame("too large"),
			statusFrame(transport.StatusReconnecting, "The producer closed the event stream."),
			statusFrame(transport.StatusConnected, ""),
			eventFrame(3), eventFrame(4),
			statusFrame(transport.StatusClosed, "End of the input."),
		)
		c := New(context.Background(), conn, "", Config{Schemas: schemas})
		got := reduce(t, c)
		c.Close()
		if got != want {
			t.Fatalf("run %d:\n got %s\nwant %s", run, got, want)
		}
	}
}

// However many notes the transport gives while nobody reads (aaep-listen
// dropped them beyond 64), every one comes out, in order.
func TestNotesNeverDropped(t *testing.T) {
	const n = 500
	var frames []transport.Frame
	for i := range n {
		frames = append(frames, problemFrame(fmt.Sprintf("problem %d", i)))
	}
	c := New(context.Background(), newScriptConn(frames...), "", Config{})
	defer c.Close()
	got := strings.Split(reduce(t, c), "|")
	if len(got) != n+1 {
		t.Fatalf("%d of %d notes came out", len(got)-1, n)
	}
	for i, g := range got[:n] {
		if want := fmt.Sprintf("P(problem %d)", i); g != want {
			t.Fatalf("update %d is %q, want %q", i, g, want)
		}
	}
}
