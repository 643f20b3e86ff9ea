package subscriber

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/aaep-term/aaep-term/transport"
)

// idle is a member of g whose client is never started: the test queues
// its updates (emit).
func idle(g *Group, label string) *Member {
	return g.Join(label, "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
}

// alarmSaying is a critical update with text.
func alarmSaying(text string) Update {
	u := alarm
	u.Text = text
	return u
}

// A group takes its members' updates itself, on the goroutine that asks
// for them (Next, Take): feeding members starts no goroutine of their own
// between their clients and the stream, so an update is never one
// goroutine switch further from its line than it need be, and a burst of
// many members wakes the reader once.
func TestGroupFeedsWithoutGoroutines(t *testing.T) {
	g := NewGroup(GroupConfig{Expected: 100})
	defer g.Stop()
	var ms []*Member
	for i := range 100 {
		ms = append(ms, idle(g, fmt.Sprint("m", i)))
	}
	before := runtime.NumGoroutine()
	for _, m := range ms {
		g.Feed(m)
	}
	// Other tests' goroutines may come and go meanwhile: one per member
	// would be 100 more.
	if after := runtime.NumGoroutine(); after-before >= len(ms)/2 {
		t.Fatalf("feeding %d members started %d goroutines, want none", len(ms), after-before)
	}
	for _, m := range ms {
		m.c.emit(&Update{Kind: KindStatus, Text: m.Tag()})
	}
	for _, m := range ms {
		b, err := g.Next(context.Background())
		if err != nil || b.Member != m {
			t.Fatalf("batch of %v (%v), want %s's", b.Member.Tag(), err, m.Tag())
		}
	}
}

// Members take turns in the order their updates were queued, and a
// critical update goes before every other member's ordinary updates
// queued before it, with the updates of its own member before it and no
// other: the order within a member is kept, whatever its turn.
func TestGroupTurns(t *testing.T) {
	type queue struct {
		member string
		us     []Update
	}
	for _, tc := range []struct {
		name   string
		queued []queue // in the order queued
		want   []string
	}{
		{"in the order queued", []queue{{"c", normal(1, "c")}, {"a", normal(1, "a")}, {"b", normal(1, "b")}},
			[]string{"c 0", "a 0", "b 0"}},
		{"the alarm passes the others", []queue{{"a", normal(2, "a")}, {"b", normal(2, "b")}, {"c", append(normal(2, "c"), alarm)}, {"d", normal(1, "d")}},
			[]string{"c 0", "c 1", "alarm", "a 0", "a 1", "b 0", "b 1", "d 0"}},
		{"alarms in the order queued", []queue{{"a", normal(1, "a")}, {"b", []Update{alarmSaying("b alarm")}}, {"a", []Update{alarmSaying("a alarm")}}, {"a", normal(1, "a late")}},
			[]string{"b alarm", "a 0", "a alarm", "a late 0"}},
		{"after the alarm, the member waits its turn", []queue{{"a", normal(1, "a")}, {"b", append([]Update{alarmSaying("b alarm")}, normal(2, "b")...)}, {"c", normal(1, "c")}},
			[]string{"b alarm", "a 0", "b 0", "b 1", "c 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup(GroupConfig{Expected: 4})
			defer g.Stop()
			ms := map[string]*Member{}
			for _, q := range tc.queued {
				m := ms[q.member]
				if m == nil {
					m = idle(g, q.member)
					g.Feed(m)
					ms[q.member] = m
				}
				for _, u := range q.us {
					m.c.emit(&u)
				}
			}
			var got []string
			for len(got) < len(tc.want) {
				b, err := g.Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range b.Updates {
					got = append(got, u.Text)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("told %q\nwant %q", got, tc.want)
			}
		})
	}
}
