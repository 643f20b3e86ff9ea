package transport

import (
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
