package replay

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/transport"
)

// A Conn hands frames to its reader one at a time: Taken returns once the
// reader is back in Recv, having taken every frame handed; after Close,
// Recv says io.EOF, and a reader that ended (done) takes nothing.
func TestConnHandsFramesInTurn(t *testing.T) {
	t.Parallel()
	k := NewConn()
	got := make(chan transport.Frame)
	ended := make(chan error, 1)
	go func() {
		for {
			f, err := k.Recv(context.Background())
			if err != nil {
				ended <- err
				return
			}
			got <- f
		}
	}()
	done := make(chan struct{})
	for _, s := range []string{"one", "two"} {
		handed := make(chan bool)
		go func() { handed <- k.Hand(transport.Frame{Data: []byte(s)}, done) }()
		if f := <-got; string(f.Data) != s {
			t.Fatalf("Recv = %q, want %q", f.Data, s)
		}
		if !<-handed {
			t.Fatalf("Hand(%q) = false, the reader still reads", s)
		}
	}
	if !k.Taken(done) {
		t.Fatal("Taken = false, the reader still reads")
	}
	k.Close()
	if err := <-ended; !errors.Is(err, io.EOF) {
		t.Fatalf("Recv after Close: %v, want io.EOF", err)
	}
	close(done)
	if k.Hand(transport.Frame{Data: []byte("late")}, done) {
		t.Error("Hand = true after the reader ended")
	}
}

// Frames received within BurstGap of the one before are one burst; a
// record's time is its receive time, else its event's timestamp, else the
// time of the one before.
func TestRecordTimeAndBursts(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	if !Together(base, base.Add(BurstGap)) || Together(base, base.Add(BurstGap+1)) {
		t.Error("Together disagrees with BurstGap")
	}
	last := base.Add(time.Minute)
	for _, tt := range []struct {
		name string
		rec  capture.Record
		want time.Time
	}{
		{"receive time", capture.Record{HasT: true, T: 1.5, Msg: []byte(`{"timestamp":"2020-01-01T00:00:00Z"}`)}, base.Add(1500 * time.Millisecond)},
		{"timestamp", capture.Record{Msg: []byte(`{"timestamp":"2020-01-01T00:00:00Z"}`)}, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"neither", capture.Record{Msg: []byte(`not json`)}, last},
	} {
		if got := RecordTime(tt.rec, base, last); !got.Equal(tt.want) {
			t.Errorf("%s: RecordTime = %v, want %v", tt.name, got, tt.want)
		}
	}
}
