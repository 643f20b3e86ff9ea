package subscriber

import "testing"

// An inbox makes room for the bursts it gets: a client whose producer
// sends one event at a time keeps no array of maxInbox frames (at 200
// agents those were a third of the heap); a flood gets its room.
func TestInboxRoomFitsTheBursts(t *testing.T) {
	in := newInbox()
	burst := func(n int) (room int) {
		for range n {
			in.put(decoded{}, nil, nil)
		}
		in.mu.Lock()
		room = cap(in.frames)
		in.mu.Unlock()
		in.done(in.take())
		return room
	}
	for range 3 {
		if room := burst(1); room > minInboxRoom {
			t.Fatalf("room for %d frames after bursts of one, want at most %d", room, minInboxRoom)
		}
	}
	if room := burst(maxInbox); room < maxInbox {
		t.Fatalf("room for %d frames in a burst of %d", room, maxInbox)
	}
}

// Frames put a group at a time reach the owner in order, and a group
// larger than the room left waits for the owner to take what waits: the
// inbox never holds more than maxInbox frames.
func TestInboxPutAllKeepsOrderAndBound(t *testing.T) {
	in := newInbox()
	const n = maxInbox + maxInbox/2
	ds := make([]decoded, n)
	for i := range ds {
		ds[i].message = string(rune('a' + i%26))
	}
	put := make(chan bool, 1)
	go func() { put <- in.putAll(ds, nil, nil) }()
	var got []decoded
	for len(got) < n {
		select {
		case <-in.ready:
		case ok := <-put:
			if !ok {
				t.Fatal("putAll reported frames left out")
			}
			put <- ok // seen; looked at again below
		}
		b := in.take()
		if len(b) > maxInbox {
			t.Fatalf("%d frames waited at once, want at most %d", len(b), maxInbox)
		}
		got = append(got, b...)
		in.done(b)
	}
	if !<-put {
		t.Fatal("putAll reported frames left out")
	}
	for i := range got {
		if got[i].message != ds[i].message {
			t.Fatalf("frame %d is %q, want %q: out of order", i, got[i].message, ds[i].message)
		}
	}
}
