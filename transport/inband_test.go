package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recvInBand names what Recv returns until its error: a message by its data,
// a note by its status or as problem, then the error.
func recvInBand(t *testing.T, c Conn) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for {
		f, err := c.Recv(ctx)
		switch {
		case err != nil:
			return append(got, "error: "+err.Error())
		case f.Note != nil && f.Note.Problem:
			got = append(got, "problem")
		case f.Note != nil:
			got = append(got, f.Note.Status.String())
		default:
			got = append(got, string(f.Data))
		}
	}
}

// With InBand, the notes of a connection come out of Recv among its
// frames, in the order they happened, however slow the consumer: the
// frames of the stream that ended, then "reconnecting", then the end.
func TestInBandNotesKeepTheirPlace(t *testing.T) {
	const n = 40
	want := []string{"connecting", "connected"}
	for i := range n {
		want = append(want, fmt.Sprintf(`{"i":%d}`, i))
	}
	want = append(want, "reconnecting", "closed", "error: "+io.EOF.Error())
	for run := range 20 {
		srv := oneStream(t, n)
		c := dial(t, srv.URL, SSEOptions{Layout: LayoutLegacy, InBand: true,
			InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
			OnStatus: func(Status, string) { t.Error("OnStatus called with InBand") }})
		if got := recvInBand(t, c); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("run %d:\n got %q\nwant %q", run, got, want)
		}
	}
}

// A file's notes come in band too: connected first, a skipped line in its
// place, the end after the last line.
func TestInBandFileNotes(t *testing.T) {
	in := "{\"a\":1}\n" + strings.Repeat("x", 200) + "\n{\"a\":3}\n"
	c := NewNDJSONConn(strings.NewReader(in), FileOptions{MaxLineBytes: 100, InBand: true})
	defer c.Close()
	got := strings.Join(recvInBand(t, c), " | ")
	want := `connected | {"a":1} | problem | {"a":3} | closed | error: EOF`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// The frames one read brings are queued a few at a time, and a problem
// found among them (an id with a NUL, a message too large) still comes
// out of Recv between the frames before it and those after it.
func TestInBandProblemsKeepTheirPlaceAmongHeldFrames(t *testing.T) {
	const n = 40
	var b strings.Builder
	want := []string{"connecting", "connected"}
	for i := range n {
		switch i {
		case 7:
			b.WriteString("id: a\x00b\n") // ignored and told: a problem
			want = append(want, "problem")
		case 20:
			fmt.Fprintf(&b, "data: %s\n\n", strings.Repeat("x", 200)) // over the limit: skipped and told
			want = append(want, "problem")
		}
		fmt.Fprintf(&b, "data: {\"i\":%d}\n\n", i)
		want = append(want, fmt.Sprintf(`{"i":%d}`, i))
	}
	want = append(want, "reconnecting", "closed", "error: "+io.EOF.Error())
	stream := b.String()
	var served atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Swap(true) {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		streamHeaders(w)
		write(w, stream) // one write: the frames arrive together
	}))
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, SSEOptions{Layout: LayoutLegacy, InBand: true, MaxFrameBytes: 100,
		InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	if got := recvInBand(t, c); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}
