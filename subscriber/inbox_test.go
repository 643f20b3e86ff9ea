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
