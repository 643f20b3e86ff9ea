package subscriber

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// queued is a member of g whose client is never started: its updates are
// the ones given, queued as the client queues them, then its End.
func queued(g *Group, label string, us []Update) *Member {
	m := g.Join(label, "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	for _, u := range us {
		m.c.emit(&u)
	}
	m.c.emit(&Update{Kind: KindEnd})
	return m
}

func normal(n int, who string) []Update {
	us := make([]Update, n)
	for i := range us {
		us[i] = Update{Kind: KindStatus, Text: fmt.Sprintf("%s %d", who, i)}
	}
	return us
}

var alarm = Update{Kind: KindDelivery, Text: "alarm", Delivery: session.Delivery{Kind: session.KindEvent,
	Event: &protocol.Event{Type: protocol.TypeProgressUpdated, Urgency: protocol.UrgencyCritical}}}

// A critical update goes ahead of every other member's batches
// (TakeCritical), with every earlier update of its own member, in order:
// here 100 of them, more than a batch (BatchMax 64) of its turn.
func TestGroupCriticalLane(t *testing.T) {
	g := NewGroup(GroupConfig{Expected: 2})
	defer g.Stop()
	noisy := queued(g, "noisy", normal(1000, "noisy"))
	us := append(normal(100, "early"), alarm)
	us = append(us, normal(5, "late")...)
	alarmed := queued(g, "alarmed", us)
	g.Feed(noisy)
	g.Feed(alarmed)
	b, ok := g.TakeCritical()
	if !ok || b.Member != alarmed || len(b.Updates) != 101 {
		t.Fatalf("critical lane: %d updates of %s, want the 101 of alarmed up to its alarm", len(b.Updates), b.Member.Tag())
	}
	for i, u := range b.Updates[:100] {
		if want := fmt.Sprintf("early %d", i); u.Text != want {
			t.Fatalf("update %d is %q, want %q: the member's order changed", i, u.Text, want)
		}
	}
	if b.Updates[100].Text != "alarm" {
		t.Fatalf("the batch ends with %q, want the alarm", b.Updates[100].Text)
	}
	// The rest of each member comes in order on the other lane.
	next := map[*Member]int{}
	for next[alarmed] < 6 || next[noisy] < 1001 {
		b := mustTake(t, g)
		for _, u := range b.Updates {
			want := fmt.Sprintf("noisy %d", next[b.Member])
			if b.Member == alarmed {
				want = fmt.Sprintf("late %d", next[b.Member])
			}
			if u.Kind != KindEnd && u.Text != want {
				t.Fatalf("%s: %q, want %q", b.Member.Tag(), u.Text, want)
			}
			next[b.Member]++
		}
	}
}

// Updates taken are not kept by the client once its queue is empty: their
// events go when the reader is done with them, not when the client next
// fills the array (a quiet agent among many kept 256 events this way).
func TestTakenUpdatesNotKept(t *testing.T) {
	c := newClient("", transport.Endpoint{}, nil, Config{})
	freed := make(chan struct{}, 1)
	ev := &protocol.Event{Type: protocol.TypeProgressUpdated}
	runtime.AddCleanup(ev, func(ch chan struct{}) { ch <- struct{}{} }, freed)
	c.emit(&Update{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Event: ev}})
	ev = nil
	for _, u := range normal(4, "x") {
		c.emit(&u)
	}
	c.mu.Lock()
	c.take(2) // the reader's batches, dropped at once
	c.take(3)
	c.mu.Unlock()
	runtime.GC() // the cleanup is queued once the collection has found the event unreachable
	select {
	case <-freed:
	case <-time.After(time.Minute):
		t.Fatal("the event of an update taken is still kept by the client")
	}
	runtime.KeepAlive(c)
}

// The members of a group share one dedupe window, made once.
func TestGroupSharesOneDedupeWindow(t *testing.T) {
	g := NewGroup(GroupConfig{Expected: 3})
	defer g.Stop()
	var ms []*Member
	for i := range 3 {
		ms = append(ms, queued(g, fmt.Sprint("m", i), nil))
	}
	for _, m := range ms {
		if m.c.cfg.Dedupe == nil || m.c.cfg.Dedupe != ms[0].c.cfg.Dedupe {
			t.Fatalf("member %s has a dedupe window of its own", m.Tag())
		}
	}
}

// A batch told and given back (Done) is where the member's next updates
// are queued: a burst costs no allocation once the array has grown, and
// the array given back keeps none of the events told.
func TestGroupDoneReusesBatches(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	m := g.Join("m", "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	burst := normal(10, "x")
	tell := func() {
		for _, u := range burst {
			m.c.emit(&u)
		}
		b, err := m.c.NextBatch(context.Background(), 0)
		if err != nil || len(b) != len(burst) {
			t.Fatalf("batch of %d, %v; want %d", len(b), err, len(burst))
		}
		g.Done(Batch{Member: m, Updates: b})
	}
	if n := testing.AllocsPerRun(100, tell); n != 0 {
		t.Errorf("a burst of %d updates told: %.1f allocations, want 0", len(burst), n)
	}

	freed := make(chan struct{}, 1)
	ev := &protocol.Event{Type: protocol.TypeProgressUpdated}
	runtime.AddCleanup(ev, func(ch chan struct{}) { ch <- struct{}{} }, freed)
	m.c.emit(&Update{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Event: ev}})
	ev = nil
	b, err := m.c.NextBatch(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	g.Done(Batch{Member: m, Updates: b})
	b = nil
	runtime.GC()
	select {
	case <-freed:
	case <-time.After(time.Minute):
		t.Fatal("the event of a batch given back is still kept by the client")
	}
	runtime.KeepAlive(m)
}

// Of a member's updates holding a critical one, only those up to the last
// critical one are taken ahead (TakeCritical): those after it wait their
// turn, behind nothing of their own member.
func TestGroupCriticalLaneEndsAtTheAlarm(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	us := append(normal(3, "early"), alarm)
	us = append(us, normal(5, "late")...)
	m := queued(g, "alarmed", us)
	g.Feed(m)
	b, ok := g.TakeCritical()
	if !ok || len(b.Updates) != 4 || b.Updates[3].Text != "alarm" {
		t.Fatalf("critical lane: %d updates, the last %q; want the 4 up to the alarm", len(b.Updates), b.Updates[len(b.Updates)-1].Text)
	}
	var rest []Update
	for len(rest) < 6 {
		rest = append(rest, mustTake(t, g).Updates...)
	}
	for i, u := range rest[:5] {
		if want := fmt.Sprintf("late %d", i); u.Text != want {
			t.Fatalf("update %d after the alarm is %q, want %q", i, u.Text, want)
		}
	}
	if rest[5].Kind != KindEnd {
		t.Fatalf("the last update is %v, want the End", rest[5].Kind)
	}
}

// mustTake is the next batch of g, which must be waiting.
func mustTake(t *testing.T, g *Group) Batch {
	t.Helper()
	b, ok := g.Take()
	if !ok {
		t.Fatal("no batch waits")
	}
	return b
}

// A batch is critical when any of its updates is, wherever it stands, and
// Batch.Critical says what asking each update says.
func TestBatchCritical(t *testing.T) {
	prompt := Update{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindPromptExpired}}
	for _, tc := range []struct {
		name string
		us   []Update
		want bool
	}{
		{"empty", nil, false},
		{"normal", normal(3, "a"), false},
		{"alarm first", append([]Update{alarm}, normal(3, "a")...), true},
		{"alarm last", append(normal(3, "a"), alarm), true},
		{"alarm between", append(append(normal(2, "a"), alarm), normal(2, "b")...), true},
		{"an expired prompt", append(normal(1, "a"), prompt), true},
		{"an event without its event", []Update{{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent}}}, false},
	} {
		b := Batch{Updates: tc.us}
		if got := b.Critical(); got != tc.want || got != slices.ContainsFunc(tc.us, Update.Critical) {
			t.Errorf("%s: Critical() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A client marks each update it queues with what it found of its
// criticality, and a batch of queued updates is told critical from the
// marks, as asking each update says.
func TestQueuedUpdatesMarkedCritical(t *testing.T) {
	c := newClient("", transport.Endpoint{}, nil, Config{})
	us := append(append(normal(3, "a"), alarm), normal(2, "b")...)
	for i := range us {
		c.emit(&us[i])
	}
	c.mu.Lock()
	first, rest := c.take(2), c.take(4)
	c.mu.Unlock()
	for _, b := range [][]Update{first, rest} {
		for _, u := range b {
			if want := map[bool]critMark{false: critNo, true: critYes}[u.critical()]; u.queuedAs != want {
				t.Errorf("update %q queued as %v, want %v", u.Text, u.queuedAs, want)
			}
		}
		if got, want := (Batch{Updates: b}).Critical(), slices.ContainsFunc(b, Update.Critical); got != want {
			t.Errorf("a batch of %d queued updates: Critical() = %v, want %v", len(b), got, want)
		}
	}
}

// Seen counts every event and moves the member's state as events do
// (connecting or reconnecting → connected) whether it takes the group's
// lock or not: an event after a lost connection is counted and makes the
// member connected again, and a prompt is recorded.
func TestSeenStateAndEventsWithoutTheLock(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	m := g.Join("m", "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	event := Update{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Event: &protocol.Event{Type: protocol.TypeProgressUpdated}}}
	status := func(k StatusKind) *Update { return &Update{Kind: KindStatus, Status: k, Text: "x"} }
	steps := []struct {
		u      *Update
		state  string
		events int
	}{
		{status(StatusConnecting), "connecting", 0},
		{&event, "connected", 1},
		{&event, "connected", 2},
		{status(StatusSubscribed), "subscribed", 2},
		{&event, "subscribed", 3},
		{status(StatusReconnecting), "connection lost, reconnecting", 3},
		{&event, "connected", 4},
		{&event, "connected", 5},
	}
	for i, s := range steps {
		g.Seen(m, s.u)
		if got := m.State(); got != s.state {
			t.Fatalf("step %d: state %q, want %q", i, got, s.state)
		}
		if got := m.Events(); got != s.events {
			t.Fatalf("step %d: %d events, want %d", i, got, s.events)
		}
	}
}

// Seen of an event delivered without a prompt, once the member is
// connected, takes no lock of the group's: the listener's loop sees a
// flood's every update, and the group's lock is also the one its readers
// of names and states take.
func TestSeenOfAnEventTakesNoLock(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	m := g.Join("m", "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	event := Update{Kind: KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Event: &protocol.Event{Type: protocol.TypeProgressUpdated}}}
	g.Seen(m, &Update{Kind: KindStatus, Status: StatusConnected, Text: "x"})
	g.mu.Lock()
	seen := make(chan struct{})
	go func() {
		g.Seen(m, &event)
		close(seen)
	}()
	select {
	case <-seen:
	case <-time.After(time.Minute):
		t.Fatal("Seen of an event waits for the group's lock")
	}
	g.mu.Unlock()
	if m.Events() != 1 {
		t.Errorf("%d events seen, want 1", m.Events())
	}
}
