package transport

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"
)

// A reader that found the queue full reads on only once Recv has taken it
// down to lowWater frames, so that it then reads a burst: woken at every
// frame taken, it ran in turn with Recv, a wake-up per frame.
func TestFullQueueReadsOnAtLowWater(t *testing.T) {
	p := newPump(false)
	for range frameQueue - 1 {
		if !p.put(Frame{}) {
			t.Fatal("put on a pump not closed failed")
		}
	}
	returned := make(chan struct{})
	go func() {
		p.put(Frame{}) // the queue is full: it waits
		close(returned)
	}()
	for p.queued() < frameQueue {
		runtime.Gosched()
	}
	for p.queued() > lowWater {
		if _, ok := p.take(); !ok {
			t.Fatal("nothing to take")
		}
		runtime.Gosched() // a reader woken now would run now
		select {
		case <-returned:
			if n := p.queued(); n > lowWater {
				t.Fatalf("the reader read on with %d frames waiting, want at most %d", n, lowWater)
			}
		default:
		}
	}
	<-returned
}

// Every Conn of this package hands over what it received without waiting.
var _ = []Waiting{(*sseConn)(nil), (*linkConn)(nil), (*fileConn)(nil)}

func TestTryRecvTakesOnlyWhatWaits(t *testing.T) {
	p := newPump(false)
	for _, id := range []string{"1", "2", "3"} {
		p.put(Frame{ID: id})
	}
	for _, want := range []string{"1", "2", "3"} {
		if f, ok := p.TryRecv(); !ok || f.ID != want {
			t.Fatalf("TryRecv = %q, %v; want %q, true", f.ID, ok, want)
		}
	}
	if f, ok := p.TryRecv(); ok {
		t.Fatalf("TryRecv with nothing waiting = %q, true", f.ID)
	}
	p.put(Frame{ID: "4"})
	p.finish(io.EOF, EndNormal)
	if f, ok := p.TryRecv(); !ok || f.ID != "4" {
		t.Fatalf("TryRecv after the end = %q, %v; want the frame before it", f.ID, ok)
	}
	if _, ok := p.TryRecv(); ok {
		t.Fatal("TryRecv handed over the end")
	}
	if _, err := p.recv(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("Recv after TryRecv = %v, want io.EOF", err)
	}

	q := newPump(false)
	q.put(Frame{ID: "1"})
	q.close()
	if _, ok := q.TryRecv(); ok {
		t.Fatal("TryRecv on a closed connection handed over a frame")
	}
}
